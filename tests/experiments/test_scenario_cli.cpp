// specdse scenario: --list names the registered scenarios, an unknown name exits 2 naming them,
// and tree-sd gives `specdse optimize`'s numbers (it runs the same optimiser).
#include <catch2/catch.hpp>

#include "tests/experiments/cli_run.hpp"

#include <array>
#include <cstdio>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace {
using cli_test::run;

// CSV lines without the column named `drop`.
std::vector<std::string> csv_without(const std::string& csv, const std::string& drop) {
  std::vector<std::string> lines;
  std::istringstream in(csv);
  int skip = -1;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    for (std::string c; std::getline(l, c, ',');) cells.push_back(c);
    if (skip < 0)
      for (std::size_t i = 0; i < cells.size(); ++i)
        if (cells[i] == drop) skip = int(i);
    std::string joined;
    for (std::size_t i = 0; i < cells.size(); ++i)
      if (int(i) != skip) joined += (joined.empty() ? "" : ",") + cells[i];
    lines.push_back(joined);
  }
  return lines;
}
}  // namespace

TEST_CASE("scenario CLI: --list, unknown names, and tree-sd equal to optimize") {
  const auto list = run("scenario --list --format csv");
  REQUIRE(list.status == 0);
  CHECK_THAT(list.output, Catch::StartsWith("scenario,description,params") && Catch::Contains("tree-sd,"));

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
  CHECK(csv_without(scenario.output, "") == csv_without(optimize.output, "task"));
}
