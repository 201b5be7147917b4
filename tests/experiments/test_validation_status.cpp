// Each scenario's validation status comes from one file (configs/reference/validation_status.yaml):
// every registered scenario has an entry, its output ends with it, and docs/validation.md's table
// is that file rendered (so the page and the outputs cannot drift apart).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiments/cli/validation_status.hpp"
#include "models/config_registry.hpp"
#include "search/scenarios/scenario.hpp"
#include "tests/experiments/cli_run.hpp"

using cli_test::run;

namespace {
const std::string kBegin = "<!-- validation-status: begin -->\n", kEnd = "<!-- validation-status: end -->";
}

TEST_CASE("validation status: every scenario has an entry and docs/validation.md renders the same table") {
  const std::string dir = models::ConfigRegistry::default_config_dir();
  for (const auto& info : search::scenarios()) {
    INFO(info.name);
    const auto s = experiments::validation_status(info.name, dir);
    REQUIRE(s.has_value());
    CHECK(!s->validated.empty());
    CHECK(!s->disagrees.empty());
    // The details page exists (the anchor is checked by docs::links through the rendered table).
    CHECK(std::filesystem::is_regular_file(std::filesystem::path(SPECDSE_SOURCE_DIR) /
                                           s->details.substr(0, s->details.find('#'))));
  }
  std::ifstream in(std::filesystem::path(SPECDSE_SOURCE_DIR) / "docs/validation.md");
  std::stringstream page;
  page << in.rdbuf();
  const std::string text = page.str();
  const auto b = text.find(kBegin), e = text.find(kEnd);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  const std::string rendered = experiments::validation_status_markdown(dir);
  INFO("docs/validation.md's block between the validation-status markers should read:\n" << rendered);
  CHECK(text.substr(b + kBegin.size(), e - b - kBegin.size()) == rendered);
}

TEST_CASE("validation status ends the scenarios' and the hand-made commands' outputs") {
  const auto specpipe = run("specpipe --model llama-3.1-70b --tokens 50 --no-boundary --no-baselines", false);
  REQUIRE(specpipe.status == 0);
  // The footer wraps at the terminal's width: a wrapped line continues after two spaces.
  std::string unwrapped = specpipe.output;
  for (std::size_t at; (at = unwrapped.find("\n  ")) != std::string::npos;) unwrapped.replace(at, 3, " ");
  CHECK_THAT(specpipe.output, Catch::Contains("\nvalidation: paper 002 Table 1"));
  CHECK_THAT(unwrapped, Catch::Contains("known to disagree: EAGLE-3 in the pipeline"));
  const auto optimize =
      run("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024", false);
  CHECK_THAT(optimize.output, Catch::Contains("\nvalidation: paper 000 Table I"));
  // CSV output: the status as a leading '# validation:' field, then the table of rows.
  const auto csv = run("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024 "
                       "--format csv",
                       false);
  CHECK_THAT(csv.output, Catch::Contains("# validation: paper 000 Table I"));
  CHECK(cli_test::without_comments(csv.output).find("validation") == std::string::npos);
}
