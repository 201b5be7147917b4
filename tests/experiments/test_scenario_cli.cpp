// specdse scenario: --list names the registered scenarios, an unknown name exits 2 naming them,
// and tree-sd gives `specdse optimize`'s numbers (it runs the same optimiser).
#include <catch2/catch.hpp>

#include "tests/experiments/cli_run.hpp"

#include <array>
#include <cstdio>
#include <algorithm>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace {
using cli_test::run;

// CSV lines without the columns named in `drop`.
// The CSV's rows (read back by the project's CSV reader, so a trailing empty cell counts)
// without the columns named in `drop`, each row joined by commas.
std::vector<std::string> csv_without(const std::string& csv, const std::vector<std::string>& drop) {
  const auto rows = cli_test::csv(csv);
  std::vector<std::string> lines;
  if (rows.empty()) return lines;
  for (const auto& cells : rows) {
    std::string joined;
    for (std::size_t i = 0; i < cells.size(); ++i)
      if (std::find(drop.begin(), drop.end(), rows.front()[i]) == drop.end()) joined += (i ? "," : "") + cells[i];
    lines.push_back(joined);
  }
  return lines;
}
}  // namespace

TEST_CASE("scenario CLI: --list, unknown names, and tree-sd equal to optimize") {
  const auto list = run("scenario --list --format csv");
  REQUIRE(list.status == 0);
  CHECK_THAT(list.output, Catch::StartsWith("scenario,description,command,params") && Catch::Contains("tree-sd,"));

  const auto unknown = run("scenario duodecoding-x");
  CHECK(unknown.status == 2);
  CHECK_THAT(unknown.output, Catch::Contains("scenario 'duodecoding-x' is not registered") &&
                                 Catch::Contains("available: ") && Catch::Contains("tree-sd"));
  CHECK(run("scenario tree-sd --param depth=2").status == 2);
  CHECK(run("scenario tree-sd --model llama-3.1-8b-instruct").status == 2);

  const std::string workload =
      "--hw u280 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024,4096 --format csv";
  const auto scenario = run("scenario tree-sd " + workload + " --param x-max=64");
  const auto optimize = run("optimize " + workload + " --x-max 64");
  REQUIRE(scenario.status == 0);
  REQUIRE(optimize.status == 0);
  // optimize adds the task, the batch and where its AAT came from, the scenario its acceptance
  // band's range; the rest must be the same bytes.
  CHECK(csv_without(scenario.output, {"speedup_low", "speedup_high", "acceptance"}) ==
        csv_without(optimize.output, {"task", "batch", "aat_source", "aat_source_tables"}));
  // The same with AAT from an acceptance process band (optimize --acceptance: the central fit).
  const std::string band = " --acceptance paper000-longspec-govreport-1024";
  const auto by_band = run("scenario tree-sd " + workload + " --param x-max=64 --param acceptance=" + band.substr(14));
  const auto optimize_band = run("optimize " + workload + " --x-max 64" + band);
  REQUIRE(by_band.status == 0);
  REQUIRE(optimize_band.status == 0);
  CHECK(csv_without(by_band.output, {"speedup_low", "speedup_high", "acceptance"}) ==
        csv_without(optimize_band.output, {"task", "batch", "aat_source", "aat_source_tables"}));
  CHECK_THAT(by_band.output, Catch::Contains("process band paper000-longspec-llama31-8b-govreport-1024: 1 fits"));
}
