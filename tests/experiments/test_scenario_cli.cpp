// specdse scenario: --list names the registered scenarios, an unknown name exits 2 naming them,
// and `specdse optimize` is tree-sd's generated command (the same bytes).
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

TEST_CASE("scenario CLI: --list, unknown names, and optimize is the tree-sd scenario") {
  const auto list = run("scenario --list --format csv");
  REQUIRE(list.status == 0);
  CHECK_THAT(list.output, Catch::StartsWith("scenario,description,command,params") && Catch::Contains("tree-sd,"));

  const auto unknown = run("scenario duodecoding-x");
  CHECK(unknown.status == 2);
  CHECK_THAT(unknown.output, Catch::Contains("scenario 'duodecoding-x' is not registered") &&
                                 Catch::Contains("available: ") && Catch::Contains("tree-sd"));
  CHECK(run("scenario tree-sd --param depth=2").status == 2);
  CHECK(run("scenario tree-sd --model llama-3.1-8b-instruct").status == 2);

  // optimize is the tree-sd scenario's generated command: one implementation, the same bytes.
  const std::string workload =
      "--hw u280 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024,4096 --format csv";
  const auto scenario = run("scenario tree-sd " + workload + " --param x-max=64");
  const auto optimize = run("optimize " + workload + " --x-max 64");
  REQUIRE(scenario.status == 0);
  REQUIRE(optimize.status == 0);
  CHECK(scenario.output == optimize.output);
  CHECK(csv_without(optimize.output, {}).front().find("aat_source") != std::string::npos);
  // The same with AAT from an acceptance process band: the central fit's row, the others' range.
  const std::string band = "paper000-longspec-govreport-1024";
  const auto by_band = run("scenario tree-sd " + workload + " --param x-max=64 --param acceptance=" + band);
  const auto optimize_band = run("optimize " + workload + " --x-max 64 --acceptance " + band);
  REQUIRE(by_band.status == 0);
  REQUIRE(optimize_band.status == 0);
  CHECK(by_band.output == optimize_band.output);
  CHECK_THAT(by_band.output, Catch::Contains("acceptance process paper000-longspec-llama31-8b-govreport-1024"));
  // Its batch is a list, as optimize's always was, and the common --batch of `specdse scenario`
  // fills it.
  const auto batches = run("optimize " + workload + " --x-max 64 --batch 1,8");
  REQUIRE(batches.status == 0);
  CHECK(cli_test::csv(batches.output).size() == 5);
  const auto one = run("scenario tree-sd " + workload + " --param x-max=64 --batch 8");
  REQUIRE(one.status == 0);
  CHECK(cli_test::csv(one.output).size() == 3);
  CHECK(run("scenario tree-sd " + workload + " --batch 8 --param batch=4").status == 2);
}
