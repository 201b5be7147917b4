// The scenario layer end to end, on chain-sd (search/scenarios/chain_sd/chain_sd_scenario.cpp,
// one file and one registration line): the same parameter names and the same numbers from its
// generated subcommand, `specdse scenario chain-sd --param`, and a scenario sweep; routed
// transfers through a relay device; typed parameters refusing out-of-range values.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/experiments/cli_run.hpp"

namespace {
using cli_test::run;

const std::string kWorkload = "--model llama-2-7b --context 512 --format csv ";
const std::string kFlags = "--system duodecoding-a800-xeon --draft llama-68m --gamma 2,4 --alpha 0.8";
const std::string kParams =
    "--param system=duodecoding-a800-xeon --param draft=llama-68m --param gamma=2,4 --param alpha=0.8";

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::path(SPECDSE_TEST_BINARY_DIR) / "scenario_layer";
  std::filesystem::create_directories(dir);
  return dir / name;
}

std::size_t column(const std::vector<std::vector<std::string>>& rows, const std::string& name) {
  REQUIRE(!rows.empty());
  for (std::size_t i = 0; i < rows.front().size(); ++i)
    if (rows.front()[i] == name) return i;
  FAIL("no column " << name);
  return 0;
}

// A cell, or "" past the row's end (the CSV splitter drops a trailing empty cell).
std::string cell(const std::vector<std::string>& row, std::size_t i) { return i < row.size() ? row[i] : ""; }

}  // namespace

TEST_CASE("chain-sd: its own subcommand and `scenario --param` give the same bytes") {
  const auto own = run("chain-sd " + kWorkload + kFlags);
  const auto generic = run("scenario chain-sd " + kWorkload + kParams);
  REQUIRE(own.status == 0);
  REQUIRE(generic.status == 0);
  CHECK(own.output == generic.output);

  const auto rows = cli_test::csv(own.output);
  REQUIRE(rows.size() == 3);  // header + gamma 2, 4
  const auto g = column(rows, "gamma"), e = column(rows, "expected_tokens_per_step"), step = column(rows, "step_s"),
             rate = column(rows, "tokens_per_s"), tr = column(rows, "t_transfer_s"), d = column(rows, "t_draft_s"),
             v = column(rows, "t_verify_s"), best = column(rows, "best");
  int marked = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const double gamma = std::stod(rows[i][g]);
    // Independent acceptance: (1 - a^(g+1)) / (1 - a).
    CHECK(std::stod(rows[i][e]) == Approx((1 - std::pow(0.8, gamma + 1)) / 0.2).epsilon(1e-6));
    CHECK(std::stod(rows[i][rate]) == Approx(std::stod(rows[i][e]) / std::stod(rows[i][step])).epsilon(1e-6));
    // Sequential iteration on the timeline: its makespan is the sum of its parts.
    CHECK(std::stod(rows[i][step]) ==
          Approx(std::stod(rows[i][d]) + std::stod(rows[i][tr]) + std::stod(rows[i][v])).epsilon(1e-6));
    CHECK(std::stod(rows[i][tr]) > 0);  // CPU draft, GPU target: both messages cross PCIe
    marked += cell(rows[i], best) == "*";
  }
  CHECK(marked == 1);

  // --trace-out: the fastest iteration's phases on the timeline (gamma 4 wins here).
  const auto trace = scratch("chain_sd_trace.json");
  std::filesystem::remove(trace);
  REQUIRE(run("chain-sd " + kWorkload + kFlags + " --trace-out " + trace.string()).status == 0);
  std::ifstream tf(trace);
  const std::string json((std::istreambuf_iterator<char>(tf)), std::istreambuf_iterator<char>());
  for (const char* phase : {"draft pass 4", "draft tokens", "verify 5 tokens", "verdict"}) CHECK_THAT(json, Catch::Contains(phase));

  // The draft beside the target on the GPU: nothing crosses a link.
  const auto same = cli_test::csv(run("chain-sd " + kWorkload + kFlags + " --draft-device gpu").output);
  REQUIRE(same.size() == 3);
  CHECK(std::stod(same[1][column(same, "t_transfer_s")]) == 0.0);
}

TEST_CASE("chain-sd: a scenario sweep's rows are the scenario's rows under the same names") {
  const auto spec = scratch("chain_sd_sweep.yaml");
  std::ofstream(spec) << "name: chain_sd_alpha\nscenario: chain-sd\naxes:\n  model: llama-2-7b\n  context: 512\n"
                         "  system: duodecoding-a800-xeon\n  draft: llama-68m\n  gamma: [2, 4]\n  alpha: [0.6, 0.8]\n";
  const auto out = scratch("chain_sd_sweep.csv");
  std::filesystem::remove(out);
  const auto swept = run("sweep --spec " + spec.string() + " --out " + out.string() + " --threads 2 --quiet");
  REQUIRE(swept.status == 0);
  std::ifstream f(out);
  const std::string csv((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto rows = cli_test::csv(csv);
  REQUIRE(rows.size() == 5);  // header + 2 alphas x 2 windows
  CHECK(rows[0][0] == "model");
  CHECK(rows[0][5] == "alpha");
  const auto direct = cli_test::csv(run("chain-sd " + kWorkload + kFlags).output);
  REQUIRE(direct.size() == 3);
  // alpha (the last axis) varies fastest: alpha 0.8 is rows 2 (gamma 2) and 4 (gamma 4); after the
  // 6 axis columns come the scenario's cells, all but `best` (each point holds one window).
  for (std::size_t r = 1; r <= 2; ++r)
    for (std::size_t c = 0; c + 1 < direct[0].size(); ++c) CHECK(cell(rows[2 * r], c + 6) == cell(direct[r], c));
  // One thread gives the same bytes.
  const auto out1 = scratch("chain_sd_sweep_1.csv");
  REQUIRE(run("sweep --spec " + spec.string() + " --out " + out1.string() + " --threads 1 --quiet").status == 0);
  std::ifstream f1(out1);
  CHECK(std::string((std::istreambuf_iterator<char>(f1)), std::istreambuf_iterator<char>()) == csv);
  // An axis that is neither an input nor a parameter is named, with the closest one.
  const auto bad = scratch("chain_sd_bad.yaml");
  std::ofstream(bad) << "scenario: chain-sd\naxes:\n  model: llama-2-7b\n  gama: 3\n";
  const auto r = run("sweep --spec " + bad.string());
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("axes.gama") && Catch::Contains("did you mean 'gamma'"));
  // A key given twice is refused, at the top level and among the axes.
  const auto twice = scratch("chain_sd_twice.yaml");
  std::ofstream(twice) << "scenario: chain-sd\nscenario: tree-sd\naxes:\n  model: llama-2-7b\n";
  CHECK(run("sweep --spec " + twice.string()).status == 2);
  std::ofstream(twice) << "scenario: chain-sd\naxes:\n  alpha: 0.6\n  alpha: 0.8\n";
  const auto axis_twice = run("sweep --spec " + twice.string());
  CHECK(axis_twice.status == 2);
  CHECK_THAT(axis_twice.output, Catch::Contains("axes.alpha"));
}

TEST_CASE("chain-sd: transfers follow the route through a relay, and no path is an error") {
  const auto sys = scratch("relay.yaml");
  std::ofstream(sys) << "name: relay\ndevices:\n  - {name: gpu0, hardware: a800, stack: pytorch-eager}\n"
                        "  - {name: cpu, hardware: xeon-16c, stack: llama-cpp}\n"
                        "  - {name: gpu1, hardware: a800, stack: pytorch-eager}\n"
                        "links:\n  - {link: pcie4-x16, topology: chain, devices: [gpu0, cpu, gpu1]}\n"
                        "placement:\n  target: {stages: even, devices: [gpu1]}\n  draft: {device: gpu0}\n";
  const std::string base = "chain-sd " + kWorkload + "--system " + sys.string() + " --draft llama-68m --gamma 4";
  const auto relayed = cli_test::csv(run(base).output);
  const auto direct = cli_test::csv(run(base + " --draft-device cpu").output);
  REQUIRE(relayed.size() == 2);
  REQUIRE(direct.size() == 2);
  // gpu0 -> cpu -> gpu1 is two hops of the one-hop cpu -> gpu1 transfer.
  CHECK(std::stod(relayed[1][column(relayed, "t_transfer_s")]) ==
        Approx(2 * std::stod(direct[1][column(direct, "t_transfer_s")])).epsilon(1e-6));

  const auto lonely = scratch("lonely.yaml");
  std::ofstream(lonely) << "name: lonely\ndevices:\n  - {name: gpu0, hardware: a800, stack: pytorch-eager}\n"
                           "  - {name: cpu, hardware: xeon-16c, stack: llama-cpp}\n"
                           "  - {name: gpu1, hardware: a800, stack: pytorch-eager}\n"
                           "links:\n  - {link: pcie4-x16, topology: switch, devices: [cpu, gpu1]}\n"
                           "placement:\n  target: {stages: even, devices: [gpu1]}\n  draft: {device: gpu0}\n";
  const auto none = run("chain-sd " + kWorkload + "--system " + lonely.string() + " --draft llama-68m --gamma 4");
  CHECK(none.status == 2);
  CHECK_THAT(none.output, Catch::Contains("no path of links from gpu0 to gpu1"));
}

TEST_CASE("scenario parameters: typed, in range, never wrapped") {
  const std::string base = "chain-sd " + kWorkload + "--system duodecoding-a800-xeon --draft llama-68m ";
  for (const char* bad_text : {"--gamma 4294967297", "--gamma 0", "--gamma 2,x", "--alpha 1.5", "--alpha nan",
                                 "--engine simm", "--gamma 1-100000000"}) {
    const std::string bad = bad_text;
    const auto r = run(base + bad);
    INFO(bad << " -> " << r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(bad.substr(0, bad.find(' '))));
  }
  const auto wrapped = run("scenario tree-sd --hw u280 --model llama-3.1-8b-instruct --algorithm longspec-tree "
                           "--context 1024 --param x-max=4294967297");
  CHECK(wrapped.status == 2);
  CHECK_THAT(wrapped.output, Catch::Contains("x-max") && Catch::Contains("4294967297"));
  const auto typo = run("scenario chain-sd --model llama-2-7b --context 512 --param gama=3");
  CHECK(typo.status == 2);
  CHECK_THAT(typo.output, Catch::Contains("did you mean 'gamma'"));
  CHECK_THAT(run("scenario chain-sd --model llama-2-7b --context 512 --param engine=simm").output,
             Catch::Contains("did you mean 'sim'"));
}
