// The acceptance process from the command line: `fit --statistics` (errors, the band it writes)
// and `optimize --acceptance BAND` (AAT from the band's process, named in the output).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "experiments/cli/workload_setup.hpp"
#include "models/config_registry.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
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

TEST_CASE("fit --statistics --scenario: the scenario runs on the fitted band, errors before any fit") {
  const std::string stats = "acceptance_cli_scenario_stats.yaml";
  // Exact statistics (no simulation): fast. Two fits, persistence left open.
  std::ofstream(stats) << "name: tiny-specpipe\nstart: {alpha_easy: 0.9, alpha_hard: 0.5, easy_share: 0.8, "
                          "confidence: calibrated}\nfree: [alpha_easy]\nopen: {persistence: [0.0, 0.8]}\n"
                          "statistics:\n  - {kind: top_k_hit, k: 1, value: 0.8, source: test}\n";
  const std::string scenario = "fit --statistics " + stats + " --scenario specpipe --model llama-3.1-70b "
                               "--param tokens=200 --param baselines=false --param boundary=false";
  const auto ok = run(scenario + " --format csv", false);
  REQUIRE(ok.status == 0);
  // The fit's rows, then the scenario's: hits from the band (its name in every SpecPipe row), the
  // best row's low / high over the two fits around its mean.
  const auto at = ok.output.find("method,batch,w,k,tree,tbt_mean_s,tbt_low_s,tbt_high_s");
  REQUIRE(at != std::string::npos);
  std::istringstream rows(ok.output.substr(at));
  std::string header, best;
  std::getline(rows, header);
  std::getline(rows, best);
  CHECK_THAT(best, Catch::StartsWith("specpipe,1,64,16,") && Catch::Contains("process band tiny-specpipe: 2 fits"));
  double mean = 0, low = 0, high = 0;
  REQUIRE(std::sscanf(best.c_str(), "specpipe,1,64,16,,%lf,%lf,%lf", &mean, &low, &high) == 3);
  CHECK(low <= mean);
  CHECK(mean <= high);
  CHECK(low < high);
  // Wrong scenario, missing input, a contradicting --param, --scenario without --statistics: one
  // line, exit 2, and (for the first three) no fit made.
  for (const auto& [args, what] : std::vector<std::pair<std::string, std::string>>{
           {"fit --statistics " + stats + " --scenario eagle-dispatcher", "does not draw from an acceptance process band"},
           {"fit --statistics " + stats + " --scenario specpipe", "expected --model"},
           {scenario + " --param acceptance=x", "the scenario runs on the band this fit writes"},
           {"fit --scenario specpipe --model llama-3.1-70b", "needs --statistics"},
           {"fit --statistics " + stats + " --hw v80", "--hw applies to --scenario NAME"},
           {"fit --statistics " + stats + " --param tokens=3", "--param applies to --scenario NAME"},
           {"fit --statistics " + stats + " --engine sim", "--engine applies to --scenario NAME"},
           {scenario + " --format json", "two JSON documents"}}) {
    const auto r = run(args);
    INFO(args);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(what));
    CHECK(lines(r.output) == 1);
  }
  std::remove(stats.c_str());
}

TEST_CASE("policies --acceptance: the window policies replay a chain trace drawn from a band") {
  const auto ok = run("policies --acceptance duodecoding-paper003 --iterations 600 --cost-ratio 0.1 --format csv", false);
  REQUIRE(ok.status == 0);
  CHECK_THAT(ok.output, Catch::Contains("\nstatic-1,600,") && Catch::Contains("\nonline,600,"));
  // The same seed gives the same bytes; the written trace reads back as the replayed one.
  const std::string trace = "acceptance_cli_policies_trace.txt";
  const auto again = run("policies --acceptance duodecoding-paper003 --iterations 600 --cost-ratio 0.1 --format csv "
                         "--write-trace " + trace, false);
  CHECK(again.output == ok.output);
  const auto replay = run("policies --trace " + trace + " --cost-ratio 0.1 --format csv", false);
  REQUIRE(replay.status == 0);
  CHECK(cli_test::without_comments(replay.output) == cli_test::without_comments(ok.output));
  std::remove(trace.c_str());
  for (const auto& [args, what] : std::vector<std::pair<std::string, std::string>>{
           {"policies --cost-ratio 0.1", "expected exactly one of --trace FILE, --synthetic SPEC and --acceptance BAND"},
           {"policies --acceptance duodecoding-paper003 --synthetic 100:0.5 --cost-ratio 0.1", "got several"},
           {"policies --acceptance nope --cost-ratio 0.1", "nope"},
           {"policies --acceptance duodecoding-paper003 --iterations 0 --cost-ratio 0.1", "--iterations"},
           {"policies --synthetic 100:0.5 --iterations 50 --cost-ratio 0.1", "--iterations: applies to --acceptance"}}) {
    const auto r = run(args);
    INFO(args);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(what));
    CHECK(lines(r.output) == 1);
  }
}

TEST_CASE("window --acceptance: an independent band gives --alpha's table, a bursty band its own chain expectation") {
  // A band of one independent fit (alpha_easy = alpha_hard = 0.6) is eq. 10 at 0.6.
  const std::string band = "acceptance_cli_window_band.yaml";
  std::ofstream(band) << "name: flat\nfitted_to: test\nstatistics: []\nleft_open: []\nmembers:\n"
                         "  - {alpha_easy: 0.6, alpha_hard: 0.6, easy_share: 1, persistence: 0, depth_decay: 1, "
                         "alpha_cap: 0.99, confidence: constant, calibration: 1, lower_rank_share: 1, max_abs_residual: 0}\n";
  const auto by_band = run("window --acceptance " + band + " --cost-ratio 0.1 --format csv", false);
  const auto by_alpha = run("window --alpha 0.6 --cost-ratio 0.1 --format csv", false);
  REQUIRE(by_band.status == 0);
  REQUIRE(by_alpha.status == 0);
  // Same rows but the acceptance cell: compare every other cell.
  std::istringstream a(cli_test::without_comments(by_band.output)), b(cli_test::without_comments(by_alpha.output));
  std::string la, lb;
  std::getline(a, la);
  std::getline(b, lb);
  CHECK(la == "cost_ratio,acceptance,gamma,expected_tokens,t_draft_s,t_verify_s,t_iteration_s,tokens_per_s,speedup,best");
  int rows = 0;
  while (std::getline(a, la) && std::getline(b, lb) && la.rfind('#', 0) != 0) {
    const auto strip = [](const std::string& line) {  // drop the second cell
      const auto first = line.find(','), second = line.find(',', first + 1);
      return line.substr(0, first) + line.substr(second);
    };
    double ea = 0, eb = 0;
    const std::string sa = strip(la), sb = strip(lb);
    REQUIRE(std::sscanf(sa.c_str(), "%*[^,],%*d,%lf", &ea) == 1);
    REQUIRE(std::sscanf(sb.c_str(), "%*[^,],%*d,%lf", &eb) == 1);
    CHECK(ea == Approx(eb).epsilon(1e-12));
    CHECK(sa.substr(sa.rfind(',')) == sb.substr(sb.rfind(',')));  // the same best window
    ++rows;
  }
  CHECK(rows == 17);
  std::remove(band.c_str());
  const auto bursty = run("window --acceptance duodecoding-paper003 --cost-ratio 0.1 --map --format csv", false);
  REQUIRE(bursty.status == 0);
  CHECK_THAT(bursty.output, Catch::Contains("duodecoding-llama68m-llama2-7b fit 15 of 23 (persistence=0.7 lower_rank_share=0.35) [central]"));
  const auto neither = run("window --cost-ratio 0.1");
  CHECK(neither.status == 2);
  CHECK_THAT(neither.output, Catch::Contains("exactly one of --alpha"));
}

TEST_CASE("chain-sd --acceptance: expected tokens are the band's central chains, tokens/s low <= row <= high") {
  const std::string base = "chain-sd --system duodecoding-a800-xeon --draft llama-68m --model llama-2-7b --context 256 "
                           "--format csv ";
  const auto r = run(base + "--gamma 1-4 --acceptance duodecoding-paper003", false);
  REQUIRE(r.status == 0);
  const auto band = search::resolve_process_band("duodecoding-paper003", models::ConfigRegistry::default_config_dir());
  const search::AcceptanceProcess central(band.central().params, band.name);
  std::istringstream rows(cli_test::without_comments(r.output));
  std::string line;
  std::getline(rows, line);
  int n = 0;
  while (std::getline(rows, line) && line.rfind('#', 0) != 0) {
    int gamma = 0;
    double expected = 0, step = 0, rate = 0, low = 0, high = 0;
    REQUIRE(std::sscanf(line.c_str(), "%*[^,],%*[^,],%*[^,],%*d,%d,ok,%lf,%*f,%*f,%*f,%lf,%lf,%*f,%*f,%lf,%lf", &gamma,
                        &expected, &step, &rate, &low, &high) == 6);
    CHECK(expected == Approx(central.chain_tpc(gamma)).epsilon(1e-8));
    // low / high: the slowest and fastest of every fit at this window, recomputed here.
    double want_low = 1e300, want_high = 0;
    for (const auto& m : band.members) {
      const double r = search::AcceptanceProcess(m.params, band.name).chain_tpc(gamma) / step;
      want_low = std::min(want_low, r), want_high = std::max(want_high, r);
    }
    CHECK(low == Approx(want_low).epsilon(1e-8));
    CHECK(high == Approx(want_high).epsilon(1e-8));
    CHECK(low < rate);
    CHECK(rate < high);
    ++n;
  }
  CHECK(n == 4);
  // Without a band: eq. 10 at --alpha, as before (low = high = the row).
  const auto alpha = run(base + "--alpha 0.6 --gamma 2", false);
  CHECK_THAT(alpha.output, Catch::Contains(",1.96,") && Catch::Contains("independent alpha 0.6"));
  const auto both = run(base + "--alpha 0.6 --acceptance duodecoding-paper003");
  CHECK(both.status == 2);
  CHECK_THAT(both.output, Catch::Contains("give one source of acceptance"));
}

TEST_CASE("AAT between two measured contexts is interpolated in ln context and flagged, outside them an error") {
  const auto data = search::AcceptanceData::load(models::ConfigRegistry::default_config_dir() +
                                                 "/acceptance/aat_measurements.csv");
  const experiments::AatSelection sel{"eagle3-tree", "llama-3.1-8b-instruct", "govreport", ""};
  const auto lo = experiments::aat_source(data, sel, 1024), hi = experiments::aat_source(data, sel, 2048);
  const auto mid = experiments::aat_source(data, sel, 1448);  // about the geometric mean: t = 0.5
  CHECK(lo.note.empty());
  CHECK(mid.note == "interpolated between contexts 1024 and 2048 (linear in ln context)");
  REQUIRE(mid.measured.size() >= 3);
  const double t = (std::log(1448.0) - std::log(1024.0)) / (std::log(2048.0) - std::log(1024.0));
  for (const auto& [x, v] : mid.measured) {
    INFO("x = " << x);
    CHECK(v == Approx(lo.measured.at(x) + t * (hi.measured.at(x) - lo.measured.at(x))).epsilon(1e-12));
  }
  // optimize names it in aat_source; beyond the measured contexts it is still an error.
  const auto r = run("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm eagle3-tree --context 1536 --format csv",
                     false);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("interpolated between contexts 1024 and 2048"));
  const auto beyond = run("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm eagle3-tree --context 100000");
  CHECK(beyond.status == 2);
  CHECK_THAT(beyond.output, Catch::Contains("contexts with data"));
}
