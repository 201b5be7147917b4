// The acceptance process from the command line: `fit --statistics` (errors, the band it writes)
// and `optimize --acceptance BAND` (AAT from the band's process, named in the output).
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/experiments/cli_run.hpp"

using cli_test::run;

namespace {
const std::string kOptimize =
    "optimize --hw v80 --model llama-3.1-8b-instruct --context 1024 --format csv --acceptance paper000-longspec-govreport-1024 ";

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}
}  // namespace

TEST_CASE("optimize --acceptance: AAT from the process band, chain or tree, named in aat_source") {
  const auto tree = run(kOptimize + "--algorithm longspec-tree", false);
  REQUIRE(tree.status == 0);
  const auto rows = cli_test::csv(tree.output);
  REQUIRE(rows.size() == 2);
  std::size_t source = 0, aat = 0, best_x = 0;
  for (std::size_t i = 0; i < rows[0].size(); ++i) {
    if (rows[0][i] == "aat_source") source = i;
    if (rows[0][i] == "aat_at_best") aat = i;
    if (rows[0][i] == "best_x") best_x = i;
  }
  CHECK_THAT(rows[1][source], Catch::Contains("acceptance process") && Catch::Contains("best-first trees"));
  // AAT(x) <= x, and a tree beats the chain of the same process at the same x.
  CHECK(std::stod(rows[1][aat]) <= std::stod(rows[1][best_x]));
  const auto chain = run(kOptimize + "--algorithm longspec-chain", false);
  REQUIRE(chain.status == 0);
  CHECK_THAT(chain.output, Catch::Contains("(chain;"));
  // A band and --alpha are two acceptance sources.
  const auto both = run(kOptimize + "--algorithm longspec-chain --alpha 0.5");
  CHECK(both.status == 2);
  const auto unknown = run("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024 --acceptance paper000");
  CHECK(unknown.status == 2);
  CHECK(lines(unknown.output) == 1);
  CHECK_THAT(unknown.output, Catch::Contains("paper000-longspec-govreport-1024"));
}

TEST_CASE("fit --statistics: bad files and flags are one-line errors, --out writes a band that reads back") {
  const auto no_file = run("fit --statistics does-not-exist.yaml");
  CHECK(no_file.status == 2);
  CHECK(lines(no_file.output) == 1);
  const auto mixed = run("fit --statistics x.yaml --algorithm longspec-tree");
  CHECK(mixed.status == 2);
  CHECK_THAT(mixed.output, Catch::Contains("--statistics"));
  const auto out_alone = run("fit --out band.yaml");
  CHECK(out_alone.status == 2);
  const std::string stats = "acceptance_cli_stats.yaml", band = "acceptance_cli_band.yaml";
  std::ofstream(stats) << "name: tiny\nstart: {alpha_easy: 0.7}\nfree: [alpha_easy]\nstatistics:\n"
                          "  - {kind: chain_tpc, length: 2, value: 2.2, source: test}\n";
  const auto ok = run("fit --statistics " + stats + " --out " + band + " --format csv", false);
  REQUIRE(ok.status == 0);
  const auto back = run(kOptimize.substr(0, kOptimize.find("--acceptance")) + "--algorithm longspec-chain --acceptance " + band, false);
  CHECK(back.status == 0);
  CHECK_THAT(back.output, Catch::Contains("acceptance process tiny"));
  std::remove(stats.c_str());
  std::remove(band.c_str());
}
