// `specdse plan` (search/plan): every scheme that applies, ranked by time between tokens;
// each ranked number is the one its own scenario command gives; infeasible and inapplicable
// candidates are listed, not ranked; bad requests are one-line errors with exit 2.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "tests/experiments/cli_run.hpp"

namespace {
using cli_test::column;
using cli_test::csv;
using cli_test::run;

struct Plan {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // without the header
  std::string cell(std::size_t row, const std::string& name) const {
    const auto i = column(header, name);
    return i < rows[row].size() ? rows[row][i] : "";
  }
  double number(std::size_t row, const std::string& name) const { return std::stod(cell(row, name)); }
  // The first row of `scheme` whose placement contains `where`; fails the test when none.
  std::size_t find(const std::string& scheme, const std::string& where = "") const {
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (cell(i, "scheme") == scheme && cell(i, "placement").find(where) != std::string::npos) return i;
    FAIL("no " << scheme << " row placed " << where);
    return 0;
  }
};

Plan plan(const std::string& args) {
  const auto r = run("plan --format csv " + args, false);
  INFO(r.output);
  REQUIRE(r.status == 0);
  auto all = csv(r.output);
  REQUIRE(all.size() >= 2);
  Plan p;
  p.header = all.front();
  p.rows.assign(all.begin() + 1, all.end());
  return p;
}

// Column `name` of the row of a command's CSV output whose column `key` is `value`.
double scenario_number(const std::string& args, const std::string& key, const std::string& value,
                       const std::string& name) {
  const auto r = run(args + " --format csv", false);
  INFO(args << "\n" << r.output);
  REQUIRE(r.status == 0);
  const auto rows = csv(r.output);
  const auto k = column(rows.front(), key), n = column(rows.front(), name);
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i][k] == value) return std::stod(rows[i][n]);
  FAIL("no row with " << key << " = " << value);
  return 0;
}

void check_ranked_in_order(const Plan& p) {
  double last = 0;
  std::size_t ranked = 0;
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    if (p.cell(i, "rank").empty()) {
      CHECK(p.cell(i, "status") != "ok");
      // An untimed candidate shows no time; one that misses a target shows by how much.
      CHECK(p.cell(i, "tbt_ms").empty() == (p.cell(i, "status").rfind("misses", 0) != 0));
      continue;
    }
    CHECK(p.cell(i, "status") == "ok");
    CHECK(std::stoul(p.cell(i, "rank")) == ++ranked);
    CHECK(i + 1 == ranked);  // ranked rows come first
    const double tbt = p.number(i, "tbt_ms");
    CHECK(tbt >= last);
    CHECK(p.number(i, "tbt_low_ms") <= tbt);
    CHECK(p.number(i, "tbt_high_ms") >= tbt);
    CHECK(p.number(i, "tokens_per_s") == Approx(1e3 / tbt).epsilon(1e-7));
    last = tbt;
  }
  CHECK(ranked >= 2);
}

}  // namespace

TEST_CASE("plan on one H100: every scheme listed, ranked by TBT, each number its own scenario's", "[plan]") {
  const std::string workload = " --model llama-3.1-8b-instruct --context 1024";
  const auto p = plan("--hw h100-sxm --alpha 0.8" + workload);
  check_ranked_in_order(p);
  // Every registered scheme has a row, timed or with the reason it is not.
  for (const char* scheme : {"plain", "chain SD", "tree SD", "EAGLE head", "SpecPipe", "DuoDecoding"})
    p.find(scheme);
  CHECK(p.cell(p.find("plain"), "speedup") == "1");
  // No CPU to draft on, no pipeline: DuoDecoding and SpecPipe are listed, not ranked.
  CHECK(p.cell(p.find("DuoDecoding"), "status").rfind("not applicable", 0) == 0);
  CHECK(p.cell(p.find("SpecPipe"), "status").rfind("not applicable", 0) == 0);
  // The same numbers as the scenario commands at the same parameters.
  const auto tree = p.find("tree SD", "eagle3-tree");
  CHECK(1e3 / p.number(tree, "tbt_ms") ==
        Approx(scenario_number("scenario tree-sd --hw h100-sxm --stack vllm-cuda-graph --algorithm eagle3-tree" + workload, "algorithm",
                               "eagle3-tree", "best_tokens_per_s"))
            .epsilon(1e-6));
  const auto eagle = p.find("EAGLE head");
  const std::string eagle_cmd = "eagle --hw h100-sxm --batch 1" + workload;
  CHECK(p.number(eagle, "tbt_ms") == Approx(scenario_number(eagle_cmd, "batch", "1", "ttit_ms") /
                                            scenario_number(eagle_cmd, "batch", "1", "tpc"))
                                         .epsilon(1e-6));
  // Chain SD beside the target, with the window the chain-sd scenario marks best.
  const auto chain = p.find("chain SD", "beside the target");
  CHECK(p.cell(chain, "parameters").rfind("gamma=", 0) == 0);
  CHECK(p.number(chain, "speedup") > 1);
}

TEST_CASE("plan on SpecPipe's 8-GPU pipeline agrees with the specpipe and system commands", "[plan]") {
  const std::string workload = " --model llama-3.1-70b --context 1024";
  const auto p = plan("--system specpipe-8x3090-pcie" + workload);
  check_ranked_in_order(p);
  const std::string specpipe = "specpipe --system specpipe-8x3090-pcie --draft llama-3.2-1b --w 16,64 --k 4,16" + workload;
  CHECK(p.number(p.find("SpecPipe"), "tbt_ms") ==
        Approx(1e3 * scenario_number(specpipe, "best", "*", "tbt_mean_s")).epsilon(1e-7));
  CHECK(p.number(p.find("SpecInfer tree (pipeline)"), "tbt_ms") ==
        Approx(1e3 * scenario_number(specpipe, "method", "pp+specinfer-tree", "tbt_mean_s")).epsilon(1e-7));
  // Their bands are the scenario's over paper 002's acceptance process band.
  CHECK(p.number(p.find("SpecPipe"), "tbt_low_ms") ==
        Approx(1e3 * scenario_number(specpipe, "best", "*", "tbt_low_s")).epsilon(1e-7));
  CHECK(p.number(p.find("SpecInfer tree (pipeline)"), "tbt_high_ms") ==
        Approx(1e3 * scenario_number(specpipe, "method", "pp+specinfer-tree", "tbt_high_s")).epsilon(1e-7));
  CHECK(p.number(p.find("SpecPipe"), "tbt_low_ms") < p.number(p.find("SpecPipe"), "tbt_high_ms"));
  CHECK_THAT(p.cell(p.find("SpecPipe"), "acceptance"), Catch::Contains("process band specpipe-llama32-1b-llama31-70b"));
  // EAGLE-3 drafts with its head on the last stage, once, whatever the draft models.
  CHECK_THAT(p.cell(p.find("EAGLE-3 (pipeline)"), "placement"), Catch::StartsWith("EAGLE-3 head on gpu7 (the last stage)"));
  // The footer carries SpecPipe's level-hit boundary against the other methods.
  const auto table = run("plan --system specpipe-8x3090-pcie" + workload, false);
  CHECK_THAT(table.output, Catch::Contains("SpecPipe's level-hit boundary (SpecPipe w=64 k=16 against each method"));
  // Plain decoding is the system step (`specdse system`), within 0.1 % of SpecPipe's own PP run.
  const double step_ms = 1e3 * scenario_number("system --system specpipe-8x3090-pcie" + workload, "kind", "step",
                                               "busy_s");
  CHECK(p.number(p.find("plain", "gpu0"), "tbt_ms") == Approx(step_ms).epsilon(1e-7));
  CHECK(p.number(p.find("plain", "gpu0"), "tbt_ms") ==
        Approx(1e3 * scenario_number(specpipe, "method", "pp", "tbt_mean_s")).epsilon(1e-3));
  // A 70B does not fit one RTX 3090: the one-device schemes say why they do not apply.
  CHECK(p.cell(p.find("chain SD"), "rank").empty());
}

TEST_CASE("plan on DuoDecoding's testbed: DuoDecoding and SpS from the scenario, with their acceptance band", "[plan]") {
  const auto p = plan("--system duodecoding-a800-xeon --model llama-2-7b --context 256");
  check_ranked_in_order(p);
  const auto duo = p.find("DuoDecoding");
  CHECK(p.cell(duo, "status") == "ok");
  CHECK(p.number(duo, "tbt_low_ms") < p.number(duo, "tbt_high_ms"));  // the Table 4 process band
  CHECK(p.number(duo, "ttft_ms") > 0);
  CHECK(1e3 / p.number(duo, "tbt_ms") ==
        Approx(scenario_number("scenario duodecoding --model llama-2-7b --param prompt=256 --param boundary=false",
                               "method", "DuoDecoding", "tokens_per_s"))
            .epsilon(1e-7));
  // Another pair has no measured acceptance: without --alpha DuoDecoding does not apply.
  const auto other = plan("--system duodecoding-a800-xeon --model vicuna-7b-v1.5 --context 256");
  CHECK(other.cell(other.find("DuoDecoding"), "status").rfind("not applicable", 0) == 0);
}

TEST_CASE("plan: a candidate that does not fit memory is reported, not ranked", "[plan]") {
  // Maverick in BF16 needs more than an H100 holds per GPU even over eight (its FP8 checkpoint fits).
  const auto r = run("plan --format csv --system eagle-8xh100-nvlink --model llama-4-maverick", false);
  const auto table = run("plan --system eagle-8xh100-nvlink --model llama-4-maverick", false);
  REQUIRE(r.status == 0);
  const auto rows = csv(r.output);
  const auto status = column(rows.front(), "status"), rank = column(rows.front(), "rank");
  std::size_t infeasible = 0;
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i][status].rfind("infeasible", 0) == 0) {
      ++infeasible;
      CHECK(rows[i][rank].empty());
    }
  CHECK(infeasible >= 2);  // plain decoding and the EAGLE head
  CHECK(table.output.find("no scheme could be timed") != std::string::npos);
}

TEST_CASE("plan: a TBT limit lists the slower candidates without ranking them", "[plan]") {
  const auto p = plan("--hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --tbt-limit-ms 3");
  std::size_t over = 0;
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    if (!p.cell(i, "rank").empty()) CHECK(p.number(i, "tbt_ms") <= 3);
    if (p.cell(i, "status").rfind("misses the TBT limit", 0) == 0) ++over;
  }
  CHECK(over >= 1);  // plain decoding at about 6 ms
}

TEST_CASE("plan writes the winner's timeline", "[plan]") {
  const auto dir = std::filesystem::path(SPECDSE_TEST_BINARY_DIR) / "plan";
  std::filesystem::create_directories(dir);
  const auto trace = dir / "winner.json";
  std::filesystem::remove(trace);
  const auto r = run("plan --system specpipe-8x3090-pcie --model llama-3.1-70b --trace-out " + trace.string());
  REQUIRE(r.status == 0);
  std::ifstream in(trace);
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(json.find("traceEvents") != std::string::npos);
  CHECK(r.output.find("trace: SpecPipe") != std::string::npos);  // the winner's own
}

TEST_CASE("plan writes the winner's own timeline when the winner is tree SD or the EAGLE head", "[plan]") {
  const auto dir = std::filesystem::path(SPECDSE_TEST_BINARY_DIR) / "plan";
  std::filesystem::create_directories(dir);
  const auto trace = dir / "winner_one_gpu.json";
  auto read = [&] {
    std::ifstream in(trace);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  // Tree SD wins on one H100 (its eagle3-tree drafter at x = 84: a tree of x - 1 draft nodes).
  std::filesystem::remove(trace);
  auto r = run("plan --hw h100-sxm --model llama-3.1-8b-instruct --alpha 0.8 --trace-out " + trace.string());
  REQUIRE(r.status == 0);
  CHECK(r.output.find("trace: tree SD") != std::string::npos);
  CHECK(r.output.find("x=84") != std::string::npos);
  CHECK(read().find("draft: eagle3-tree tree of 83 nodes") != std::string::npos);
  // Only the EAGLE head: its dispatcher's step (head passes, verify, exposed host work).
  std::filesystem::remove(trace);
  r = run("plan --hw h100-sxm --model llama-3.1-8b-instruct --algorithm eagle3-chain --trace-out " + trace.string());
  REQUIRE(r.status == 0);
  const auto json = read();
  if (r.output.find("trace: EAGLE head") != std::string::npos) CHECK(json.find("head pass 1") != std::string::npos);
  else CHECK(r.output.find("trace: tree SD") != std::string::npos);
}

TEST_CASE("plan: bad requests are one-line errors with exit 2", "[plan]") {
  const std::string m = " --model llama-3.1-8b-instruct";
  for (const std::string& args : std::vector<std::string>
       {std::string("--hw h100-sxm --system specpipe-8x3090-pcie") + m, m, "--hw h100-sxm --context-weights 1,2" + m,
        "--hw h100-sxm --draft opt-125m" + m, "--hw h100-sxm --alpha 1.5" + m, "--hw h100-sxm --alpha nan" + m,
        "--hw h100-sxm --tbt-limit-ms -1" + m, "--system specpipe-8x3090-pcie --stack llama-cpp" + m,
        "--system no-such-system" + m, std::string("--hw h100-sxm --model no-such-model"),
        "--hw h100-sxm --stack no-such-stack" + m, "--hw h100-sxm --acceptance no-such-band" + m,
        "--hw h100-sxm --alpha 0.7 --acceptance duodecoding-paper003" + m}) {
    const auto r = run("plan " + args);
    INFO(args << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  }
}

TEST_CASE("plan --plot writes ranked bars (PNG and PDF) with the table's CSV beside them", "[plan]") {
  const auto dir = std::filesystem::path(SPECDSE_TEST_BINARY_DIR) / "plan";
  std::filesystem::create_directories(dir);
  const auto png = dir / "ranking.png";
  for (const char* ext : {".png", ".pdf", ".csv"}) std::filesystem::remove(std::filesystem::path(png).replace_extension(ext));
  const auto r = run("plan --hw v80 --model llama-3.1-8b-instruct --plot " + png.string());
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const char* ext : {".png", ".pdf", ".csv"})
    CHECK(std::filesystem::file_size(std::filesystem::path(png).replace_extension(ext)) > 0);
  const auto bad = run("plan --hw v80 --model llama-3.1-8b-instruct --plot " + (dir / "ranking.svg").string());
  CHECK(bad.status == 2);
  CHECK(bad.output.find("--plot: expected a .png path") != std::string::npos);
}

TEST_CASE("plan states the alpha at which a draft model overtakes the winner, and it holds on either side", "[plan]") {
  const std::string base = "--hw v80 --model llama-3.1-8b-instruct --context 1024";
  const auto r = run("plan " + base + " --alpha 0.9", false);
  REQUIRE(r.status == 0);
  const std::string key = "beats tree SD x=13 when alpha >= ";
  const auto at = r.output.find(key);
  REQUIRE(at != std::string::npos);
  const double boundary = std::stod(r.output.substr(at + key.size()));
  REQUIRE(boundary > 0.9);
  REQUIRE(boundary < 0.995);
  auto chain_minus_tree = [&](double alpha) {
    const auto p = plan(base + " --alpha " + std::to_string(alpha));
    return p.number(p.find("chain SD", "beside the target"), "tbt_ms") -
           p.number(p.find("tree SD", "eagle3-tree"), "tbt_ms");
  };
  CHECK(chain_minus_tree(boundary + 0.004) <= 0);
  CHECK(chain_minus_tree(boundary - 0.004) > 0);
}

TEST_CASE("plan with --alpha says why it has no alpha boundary, and echoes the targets it checked", "[plan]") {
  // A batch no alpha-driven scheme times (chain SD times batch 1) and a context mix: the field
  // is there with the reason, not missing.
  const auto batch = run("plan --format csv --hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --batch 8 --alpha 0.8", false);
  REQUIRE(batch.status == 0);
  CHECK_THAT(batch.output, Catch::Contains("# alpha_boundary: alpha boundary not computed: no candidate timed here draws"));
  const auto mix = run("plan --format csv --hw h100-sxm --model llama-3.1-8b-instruct --context 1024,4096 --alpha 0.8", false);
  REQUIRE(mix.status == 0);
  CHECK_THAT(mix.output, Catch::Contains("# alpha_boundary: alpha boundary not computed for a mix of contexts"));
  const auto targets = run("plan --format csv --hw h100-sxm --model llama-3.1-8b-instruct --context 1024 "
                           "--tbt-limit-ms 20 --ttft-limit-ms 2000", false);
  REQUIRE(targets.status == 0);
  CHECK_THAT(targets.output, Catch::Contains("# targets: TBT <= 20 ms | TTFT <= 2000 ms at p99"));
  // Every candidate timed but short of memory: the closest is named, not "no scheme could be timed".
  const auto headroom = run("plan --format csv --hw h100-sxm --model llama-3.1-8b-instruct --context 1024 "
                            "--memory-headroom-gib 800", false);
  REQUIRE(headroom.status == 0);
  CHECK_THAT(headroom.output, Catch::Contains("no candidate meets the targets (see status); closest: plain"));
  CHECK_THAT(headroom.output, Catch::Contains("# targets: memory headroom >= 800 GiB on every device"));
}

TEST_CASE("plan over a context mix: each time between tokens is the token-weighted mean of the single-context plans", "[plan]") {
  const std::string base = "--hw h100-sxm --model llama-3.1-8b-instruct";
  const auto mix = plan(base + " --context 1024,4096 --context-weights 3,1");
  const auto at_1k = plan(base + " --context 1024");
  const auto at_4k = plan(base + " --context 4096");
  for (const std::string scheme : {"plain", "EAGLE head"}) {
    const double expected = 0.75 * at_1k.number(at_1k.find(scheme), "tbt_ms") + 0.25 * at_4k.number(at_4k.find(scheme), "tbt_ms");
    CHECK(mix.number(mix.find(scheme), "tbt_ms") == Approx(expected).epsilon(1e-7));
  }
  // Measured at 1024 only: not timed over the mix, and the row says which context lacks it.
  const auto tree = mix.find("tree SD", "eagle3-tree");
  CHECK(mix.cell(tree, "rank").empty());
  CHECK(mix.cell(tree, "status").find("context 4096") != std::string::npos);
  // One weight per context.
  const auto bad = run("plan " + base + " --context 1024,4096 --context-weights 1");
  CHECK(bad.status == 2);
  CHECK(bad.output.find("one weight per context") != std::string::npos);
}

TEST_CASE("plan reads --task: tree SD uses that task's measured acceptance", "[plan]") {
  // Paper 000 measured LongSpec's trees on LCC too; the other algorithms on GovReport only.
  const auto p = plan("--hw v80 --model llama-3.1-8b-instruct --task lcc");
  const auto tree = p.find("tree SD", "longspec-tree");
  CHECK(p.cell(tree, "status") == "ok");
  CHECK(p.cell(tree, "acceptance").find("(lcc)") != std::string::npos);
  for (std::size_t i = 0; i < p.rows.size(); ++i)
    if (p.cell(i, "scheme") == "tree SD") CHECK(p.cell(i, "placement").find("longspec-tree") != std::string::npos);
}

TEST_CASE("plan --acceptance: every scheme that takes a band draws from it, with its low / high", "[plan]") {
  // DuoDecoding's testbed with its own band named: the same numbers as the default; chain SD, which
  // needed --alpha, now runs on the band's fits and each of its rows equals chain-sd's.
  const std::string base = "--system duodecoding-a800-xeon --model llama-2-7b --context 256";
  const auto p = plan(base + " --acceptance duodecoding-paper003");
  check_ranked_in_order(p);
  const auto by_default = plan(base);
  CHECK(p.number(p.find("DuoDecoding"), "tbt_ms") == by_default.number(by_default.find("DuoDecoding"), "tbt_ms"));
  const auto chain = p.find("chain SD", "on cpu");
  REQUIRE(p.cell(chain, "status") == "ok");
  CHECK(p.number(chain, "tbt_low_ms") < p.number(chain, "tbt_high_ms"));
  CHECK_THAT(p.cell(chain, "acceptance"), Catch::Contains("process band duodecoding-llama68m-llama2-7b"));
  const std::string gamma = p.cell(chain, "parameters").substr(6);  // "gamma=N"
  const std::string reproduce = p.cell(chain, "reproduce");
  REQUIRE(reproduce.rfind("specdse chain-sd ", 0) == 0);
  CHECK_THAT(reproduce, Catch::Contains("--acceptance duodecoding-paper003"));
  CHECK(1e3 / p.number(chain, "tbt_ms") ==
        Approx(scenario_number(reproduce.substr(8), "gamma", gamma, "tokens_per_s")).epsilon(1e-7));
  // Without a band chain SD (beyond paper 003's SpS) is not applicable here (no --alpha).
  bool chain_untimed = false;
  for (std::size_t i = 0; i < by_default.rows.size(); ++i)
    chain_untimed = chain_untimed || (by_default.cell(i, "scheme") == "chain SD" &&
                                      by_default.cell(i, "status").rfind("not applicable: give --alpha", 0) == 0);
  CHECK(chain_untimed);
  // Tree SD on one device: the band's best-first trees, as optimize --acceptance.
  const auto t = plan("--hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree --acceptance "
                      "paper000-longspec-govreport-1024");
  const auto tree = t.find("tree SD");
  CHECK(t.cell(tree, "parameters") == "x=12");
  CHECK_THAT(t.cell(tree, "reproduce"), Catch::Contains("optimize ") &&
                                            Catch::Contains("--acceptance paper000-longspec-govreport-1024"));
}

namespace {

// A workload file under the test's build folder.
std::string workload_file(const std::string& name, const std::string& yaml) {
  const auto dir = std::filesystem::path(SPECDSE_TEST_BINARY_DIR) / "plan";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << yaml;
  return path.string();
}

}  // namespace

TEST_CASE("plan --workload: a workload file gives the same plan as the flags it stands for", "[plan]") {
  const std::string base = "--hw h100-sxm --model llama-3.1-8b-instruct";
  const auto file = workload_file("mix.yaml",
                                  "description: a test mix\ncontext: [1024, 4096]\ncontext_weights: [3, 1]\nbatch: 1\n"
                                  "task: govreport\ntargets:\n  tbt_ms: 5\n");
  const auto by_file = run("plan --format csv " + base + " --workload " + file, false);
  const auto by_flags =
      run("plan --format csv " + base + " --context 1024,4096 --context-weights 3,1 --tbt-limit-ms 5", false);
  REQUIRE(by_file.status == 0);
  CHECK(by_file.output == by_flags.output);
  // The shipped example runs.
  const auto example = std::filesystem::path(SPECDSE_SOURCE_DIR) / "experiments" / "workloads" / "long-report-summaries.yaml";
  CHECK(run("plan " + base + " --workload " + example.string(), false).status == 0);
}

TEST_CASE("plan --workload: bad files and settings given twice are one-line errors with exit 2", "[plan]") {
  const std::string base = "plan --hw h100-sxm --model llama-3.1-8b-instruct --workload ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"contexts: 1024\n", "contexts"},                       // unknown key (did you mean context)
      {"context: 1024\ncontext: 2048\n", "given twice"},
      {"context: [4096, 1024]\n", "ascending"},
      {"context: 0\n", "context"},
      {"context: [1024, 2048]\ncontext_weights: [1]\n", "one weight per context"},
      {"context_weights: [1]\n", "context_weights"},
      {"batch: 0\n", "batch"},
      {"alpha: 1.5\n", "alpha"},
      {"alpha: 0.7\nacceptance: duodecoding-paper003\n", "acceptance"},
      {"targets:\n  ttft: 100\n", "ttft"},
      {"targets:\n  memory_headroom_gib: -1\n", "memory_headroom_gib"},
      {"context: [1024\n", "mix.yaml"},                        // YAML syntax
      {"batch: 2\nrequest_rate_per_s: 3\n", "request_rate_per_s"},
      {"output_tokens: 100\n", "output_tokens"},
      {"rank_by: speed\n", "rank_by"},
      // Every context of a mix reruns every scheme: a list past the bound is refused up front.
      {[] {
         std::string list = "context: [";
         for (int i = 0; i < 65; ++i) list += (i ? "," : "") + std::to_string(128 + i);
         return list + "]\n";
       }(),
       "at most 64 contexts"},
  };
  for (const auto& [yaml, expected] : cases) {
    const auto file = workload_file("bad.yaml", yaml);
    const auto r = run(base + file);
    INFO(yaml << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
    CHECK(r.output.find(expected == "mix.yaml" ? "bad.yaml" : expected) != std::string::npos);
  }
  {
    std::string list;
    for (int i = 0; i < 65; ++i) list += (i ? "," : "") + std::to_string(128 + i);
    const auto r = run("plan --hw h100-sxm --model llama-3.1-8b-instruct --context " + list);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains("--context: at most 64 contexts"));
  }
  const auto file = workload_file("ctx.yaml", "context: 2048\nbatch: 2\ntask: govreport\n");
  // A flag given at its default value is still given: a conflict, found by presence.
  for (const char* flag : {" --context 1024", " --batch 4", " --batch 1", " --task govreport"}) {
    const auto r = run(base + file + flag);
    INFO(flag << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find("give one") != std::string::npos);
  }
  CHECK(run(base + "/no/such/workload.yaml").status == 2);
}

TEST_CASE("plan: every timed candidate has a time to first token and a memory headroom and targets on them list the misses", "[plan]") {
  const std::string base = "--hw h100-sxm --model llama-3.1-8b-instruct --context 4096";
  const auto p = plan(base);
  const auto plain = p.find("plain");
  const double prefill = p.number(plain, "ttft_ms");
  CHECK(prefill > 0);
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    if (p.cell(i, "rank").empty()) continue;
    // The target's prefill, plus the draft head's on the same GPU.
    CHECK(p.number(i, "ttft_ms") >= prefill);
    CHECK(p.number(i, "ttft_ms") < 1.5 * prefill);
    CHECK(p.number(i, "free_gib") > 0);
    CHECK(p.number(i, "free_gib") < 80);
  }
  // A draft holds memory: every speculative candidate leaves less free than plain decoding.
  CHECK(p.number(p.find("EAGLE head"), "free_gib") < p.number(plain, "free_gib"));
  // A longer prompt takes longer to prefill.
  CHECK(plan("--hw h100-sxm --model llama-3.1-8b-instruct --context 8192").number(0, "ttft_ms") > p.number(0, "ttft_ms"));

  // A TTFT limit between plain decoding's and the slowest candidate's.
  double slowest = 0;
  for (std::size_t i = 0; i < p.rows.size(); ++i)
    if (!p.cell(i, "rank").empty()) slowest = std::max(slowest, p.number(i, "ttft_ms"));
  REQUIRE(slowest > prefill);
  const double limit = 0.5 * (prefill + slowest);
  const auto limited = plan(base + " --ttft-limit-ms " + std::to_string(limit));
  std::size_t missed = 0;
  for (std::size_t i = 0; i < limited.rows.size(); ++i) {
    if (!limited.cell(i, "rank").empty()) CHECK(limited.number(i, "ttft_ms") <= limit);
    if (limited.cell(i, "status").rfind("misses the TTFT limit", 0) == 0) {
      ++missed;
      CHECK(limited.number(i, "ttft_ms") > limit);
    }
  }
  CHECK(missed >= 1);
  // A headroom between two candidates' free memory.
  const double headroom = 0.5 * (p.number(plain, "free_gib") + p.number(p.find("EAGLE head"), "free_gib"));
  const auto roomy = plan(base + " --memory-headroom-gib " + std::to_string(headroom));
  CHECK(roomy.cell(roomy.find("plain"), "status") == "ok");
  CHECK(roomy.cell(roomy.find("EAGLE head"), "status").rfind("misses the memory headroom", 0) == 0);
}

TEST_CASE("plan at a request rate: each candidate at the batch its serving simulation ran, Little's law's bound beside it", "[plan]") {
  const std::string base = "--hw h100-sxm --model llama-3.1-8b-instruct --context 4096 --output-tokens 128";
  const double rate = 4;
  const auto p = plan(base + " --request-rate 4");
  const auto alone = plan("--hw h100-sxm --model llama-3.1-8b-instruct --context 4096 --batch 1");
  std::size_t met = 0;
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    if (p.cell(i, "tbt_ms").empty()) continue;
    INFO(p.cell(i, "scheme") << " " << p.cell(i, "placement") << ": " << p.cell(i, "status"));
    const int batch = std::stoi(p.cell(i, "batch"));
    // requests_per_s: Little's law's bound, batch / (TTFT + output tokens x TBT), at that batch.
    const double sustained = batch / (p.number(i, "ttft_ms") * 1e-3 + 128 * p.number(i, "tbt_ms") * 1e-3);
    CHECK(p.number(i, "requests_per_s") == Approx(sustained).epsilon(1e-7));  // CSV: 9 digits
    if (!p.cell(i, "rank").empty()) {
      ++met;
      // The batch the simulated engine ran: its mean decode batch to the nearest sequence, up to a
      // timed batch (1, 2, 4, ...).
      const double ran = std::max(1.0, std::round(p.number(i, "served_mean_batch")));
      CHECK(batch >= ran);
      CHECK((batch == 1 || batch / 2 < ran));
      // An engine that keeps up with the rate runs below Little's bound, and no request is served
      // faster than alone.
      CHECK(sustained >= rate);
      const auto j = alone.find(p.cell(i, "scheme"), p.cell(i, "placement"));
      CHECK(p.number(i, "served_tbt_p50_ms") >= alone.number(j, "tbt_ms") * 0.999);
    } else {
      CHECK(p.cell(i, "status").rfind("misses the request rate in a serving simulation", 0) == 0);
    }
  }
  CHECK(met >= 1);
  // A rate and a batch, or output tokens without a rate: one-line errors.
  for (const std::string& args : {base + " --request-rate 20 --batch 4", base, base + " --request-rate 0"}) {
    const auto r = run("plan " + args);
    INFO(args << "\n" << r.output);
    CHECK(r.status == 2);
  }
}

TEST_CASE("plan at a request rate: the serving simulation sees what Little's law leaves out", "[plan]") {
  const std::string base = "--hw h100-sxm --model llama-3.1-8b-instruct --context 4096 --output-tokens 128";
  // At a vanishing rate every request runs alone: the served TBT is the candidate's own at batch
  // 1 and the served TTFT its one-prompt prefill.
  const auto idle = plan(base + " --request-rate 0.01");
  std::size_t timed = 0;
  for (std::size_t i = 0; i < idle.rows.size(); ++i) {
    if (idle.cell(i, "rank").empty()) continue;
    ++timed;
    INFO(idle.cell(i, "scheme") << " " << idle.cell(i, "placement"));
    CHECK(idle.cell(i, "batch") == "1");
    CHECK(idle.number(i, "served_tbt_p50_ms") == Approx(idle.number(i, "tbt_ms")).epsilon(1e-6));
    CHECK(idle.number(i, "served_ttft_p99_ms") == Approx(idle.number(i, "ttft_ms")).epsilon(1e-6));
    CHECK(idle.number(i, "served_mean_batch") == Approx(1).epsilon(0.01));  // a rare overlap of two
  }
  CHECK(timed >= 3);
  // At 20 requests/s of 4096-token prompts the prefills alone take 20 x TTFT > 1 s of every
  // second: Little's law (which leaves them out) would find batches that sustain the rate, the
  // simulated queue grows without end, and the candidates miss it, naming why.
  const auto busy = plan(base + " --request-rate 20");
  std::size_t overloaded = 0;
  for (std::size_t i = 0; i < busy.rows.size(); ++i) {
    if (busy.cell(i, "tbt_ms").empty() || busy.cell(i, "ttft_ms").empty()) continue;
    INFO(busy.cell(i, "scheme") << " " << busy.cell(i, "placement") << ": " << busy.cell(i, "status"));
    if (20 * busy.number(i, "ttft_ms") * 1e-3 > 1) {
      CHECK(busy.cell(i, "rank").empty());
      CHECK(busy.cell(i, "status").find("overloaded") != std::string::npos);
      ++overloaded;
    }
  }
  CHECK(overloaded >= 1);
  // The same rate and seed: the same bytes.
  CHECK(run("plan " + base + " --request-rate 20 --format csv", false).output ==
        run("plan " + base + " --request-rate 20 --format csv", false).output);
}

TEST_CASE("plan --rank-by: throughput and TTFT order the timed candidates by those", "[plan]") {
  const std::string base = "--hw h100-sxm --model llama-3.1-8b-instruct --context 4096 --batch 8";
  const auto by_tput = plan(base + " --rank-by throughput");
  const auto by_ttft = plan(base + " --rank-by ttft");
  for (std::size_t i = 1; i < by_tput.rows.size() && !by_tput.cell(i, "rank").empty(); ++i)
    CHECK(by_tput.number(i, "tokens_per_s_total") <= by_tput.number(i - 1, "tokens_per_s_total"));
  for (std::size_t i = 1; i < by_ttft.rows.size() && !by_ttft.cell(i, "rank").empty(); ++i)
    CHECK(by_ttft.number(i, "ttft_ms") >= by_ttft.number(i - 1, "ttft_ms"));
  // Plain decoding prefills the target alone: first by TTFT.
  CHECK(by_ttft.cell(0, "scheme") == "plain");
  // The same settings from a workload file.
  const auto file = workload_file("rate.yaml", "context: 4096\nrequest_rate_per_s: 20\noutput_tokens: 128\nrank_by: ttft\n");
  const auto from_file = run("plan --format csv --hw h100-sxm --model llama-3.1-8b-instruct --workload " + file, false);
  const auto from_flags = run("plan --format csv --hw h100-sxm --model llama-3.1-8b-instruct --context 4096 "
                              "--request-rate 20 --output-tokens 128 --rank-by ttft", false);
  REQUIRE(from_file.status == 0);
  CHECK(from_file.output == from_flags.output);
}

TEST_CASE("plan --workload with published statistics: fitted to a band once: the same plan as with that band", "[plan]") {
  const auto stats = std::filesystem::path(SPECDSE_SOURCE_DIR) / "configs" / "acceptance" / "statistics" / "paper003-table4.yaml";
  const auto file = workload_file("stats.yaml", "context: 1024\nstatistics: " + stats.string() + "\n");
  const std::string base = "--system duodecoding-a800-xeon --model llama-2-7b";
  const auto fitted = plan(base + " --workload " + file);
  const auto shipped = plan(base + " --context 1024 --acceptance duodecoding-paper003");
  const auto duo = fitted.find("DuoDecoding");
  CHECK(fitted.number(duo, "tbt_ms") == Approx(shipped.number(shipped.find("DuoDecoding"), "tbt_ms")).epsilon(1e-7));
  CHECK(fitted.number(duo, "tbt_low_ms") == Approx(shipped.number(shipped.find("DuoDecoding"), "tbt_low_ms")).epsilon(1e-7));
  // Relative to the workload file; several acceptance sources or a missing file are errors.
  for (const std::string& yaml : {std::string("statistics: no-such-statistics.yaml\n"),
                                  "alpha: 0.7\nstatistics: " + stats.string() + "\n"}) {
    const auto r = run("plan " + base + " --workload " + workload_file("bad-stats.yaml", yaml));
    INFO(yaml << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find("statistics") != std::string::npos);
  }
}

TEST_CASE("chain SD over a tensor-parallel target verifies through the system step and plan ranks it", "[plan]") {
  // The scenario's verification of gamma + 1 tokens is the system step of that many tokens.
  const std::string args = "scenario chain-sd --model llama-3.1-70b --context 1024 --param system=eagle-8xh100-nvlink "
                           "--param draft=llama-3.2-1b --param alpha=0.8 --param gamma=3";
  const double verify = scenario_number(args, "gamma", "3", "t_verify_s");
  const double ar = 1 / scenario_number(args, "gamma", "3", "ar_tokens_per_s");
  const double step = scenario_number("system --system eagle-8xh100-nvlink --model llama-3.1-70b --context 1024 --x 4",
                                      "kind", "step", "busy_s");
  CHECK(verify == Approx(step).epsilon(1e-7));
  CHECK(verify > ar);  // four tokens cost more than one
  CHECK(verify < 1.5 * ar);  // but the weights are read once: memory-bound
  const auto p = plan("--system eagle-8xh100-nvlink --model llama-3.1-70b --context 1024 --alpha 0.8");
  const auto c = p.find("chain SD", "llama-3.2-1b");
  CHECK(!p.cell(c, "rank").empty());
  CHECK(p.cell(c, "placement").find("target over the system's placement") != std::string::npos);
  // Its TBT is the scenario's best window's.
  const auto best = run("scenario chain-sd --model llama-3.1-70b --context 1024 --param system=eagle-8xh100-nvlink "
                        "--param draft=llama-3.2-1b --param draft-device=gpu0 --param alpha=0.8 --param gamma=1-16 "
                        "--format csv", false);
  REQUIRE(best.status == 0);
  const auto rows = csv(best.output);
  const auto star = column(rows.front(), "best"), tps = column(rows.front(), "tokens_per_s");
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i][star] == "*") CHECK(p.number(c, "tbt_ms") == Approx(1e3 / std::stod(rows[i][tps])).epsilon(1e-7));
}

TEST_CASE("plan checks TTFT and TBT targets per request at a percentile of the context mix, not on its mean", "[plan]") {
  const std::string base = "--hw h100-sxm --model llama-3.1-8b-instruct --context 1024,8192 --context-weights 4,1";
  const auto free = plan(base);
  const auto plain = free.find("plain");
  const double mean = free.number(plain, "ttft_ms"), worst = free.number(plain, "ttft_worst_ms");
  REQUIRE(worst > 2 * mean);  // the long prompts' prefill dominates
  // A limit between the mean and the slowest context: met on the mean, missed at p99 (the
  // 8192-token fifth of the mix), met at p50 (the 1024-token four fifths).
  const double limit = (mean + worst) / 2;
  const auto p99 = plan(base + fmt::format(" --ttft-limit-ms {}", limit));
  const auto row = p99.find("plain");
  CHECK(p99.cell(row, "rank").empty());
  CHECK_THAT(p99.cell(row, "status"), Catch::StartsWith("misses the TTFT limit at p99 (context 8192)"));
  const auto p50 = plan(base + fmt::format(" --ttft-limit-ms {} --slo-percentile 50", limit));
  CHECK(p50.cell(p50.find("plain"), "status") == "ok");
  // Every context's time within the mix's: the worst is one of them, at least the mean.
  for (std::size_t i = 0; i < free.rows.size(); ++i)
    if (free.cell(i, "status") == "ok") CHECK(free.number(i, "tbt_worst_ms") >= free.number(i, "tbt_ms") * (1 - 1e-12));
  // The workload file names the percentile as targets.percentile; both at once is an error.
  const std::string file = "plan_slo_percentile_workload.yaml";
  std::ofstream(file) << fmt::format("context: [1024, 8192]\ncontext_weights: [4, 1]\ntargets:\n  ttft_ms: {}\n  percentile: 50\n",
                                     limit);
  const auto from_file = plan("--hw h100-sxm --model llama-3.1-8b-instruct --workload " + file);
  CHECK(from_file.cell(from_file.find("plain"), "status") == "ok");
  const auto both = run("plan --hw h100-sxm --model llama-3.1-8b-instruct --workload " + file + " --slo-percentile 90");
  std::remove(file.c_str());
  CHECK(both.status == 2);
  CHECK_THAT(both.output, Catch::Contains("--slo-percentile") && Catch::Contains("targets.percentile"));
}

TEST_CASE("plan's JSON and CSV carry the footer's fields, and its text table fits 120 columns unless --wide", "[plan]") {
  const std::string args = "plan --system specpipe-8x3090-pcie --model llama-3.1-70b";
  const auto json = run(args + " --format json", false);
  REQUIRE(json.status == 0);
  const auto j = nlohmann::json::parse(json.output);
  REQUIRE(j.is_object());
  CHECK_THAT(j.at("winner").get<std::string>(), Catch::StartsWith("SpecPipe"));
  CHECK_THAT(j.at("runner_up").get<std::string>(), Catch::StartsWith("EAGLE-3 (pipeline)"));
  CHECK(j.at("bands_overlap") == false);  // a JSON boolean, and the verdict's times as numbers
  CHECK(j.at("winner_tbt_ms").get<double>() < j.at("runner_up_tbt_ms").get<double>());
  CHECK(j.at("engine") == "roofline");
  CHECK(j.at("caveats").is_array());
  CHECK(!j.at("validation").get<std::string>().empty());
  CHECK(j.at("rows").size() == 9);
  CHECK(j.at("rows")[0].at("rank") == 1);
  // CSV: the same fields as leading '#' lines; the rows read as before.
  const auto c = run(args + " --format csv", false);
  REQUIRE(c.status == 0);
  CHECK_THAT(c.output, Catch::StartsWith("# winner: SpecPipe") && Catch::Contains("\n# engine: roofline\n"));
  CHECK(csv(c.output).size() == 10);
  // Text: every line within 120 characters; --wide shows every column.
  const auto t = run(args, false);
  std::istringstream lines(t.output);
  for (std::string l; std::getline(lines, l);) CHECK(l.size() <= 120);
  CHECK_THAT(t.output, Catch::Contains("not shown: batch"));
  const auto wide = run(args + " --wide", false);
  CHECK_THAT(wide.output, Catch::Contains("reproduce") && !Catch::Contains("not shown"));
}

TEST_CASE("plan marks acceptance measured for another target as borrowed, in its row and its caveats", "[plan]") {
  // SpecPipe's band and hit curves were measured against Llama-3.1-70B; an 8B target borrows them.
  const auto j = nlohmann::json::parse(run("plan --system specpipe-8x3090-pcie --model llama-3.1-8b-instruct "
                                           "--format json", false).output);
  const auto sp = std::find_if(j.at("rows").begin(), j.at("rows").end(),
                               [](const auto& r) { return r.at("scheme") == "SpecPipe"; });
  REQUIRE(sp != j.at("rows").end());
  CHECK_THAT(sp->at("acceptance").get<std::string>(), Catch::StartsWith("borrowed (measured against llama-3.1-70b"));
  REQUIRE(j.at("borrowed").size() >= 1);
  CHECK_THAT(j.at("borrowed")[0].get<std::string>(), Catch::Contains("SpecPipe"));
  bool caveat = false;
  for (const auto& cav : j.at("caveats")) caveat = caveat || cav.get<std::string>().rfind("borrowed: SpecPipe", 0) == 0;
  CHECK(caveat);
}

TEST_CASE("plan with an independent alpha on paper 003's testbed: SpS is chain SD's one expected-value row", "[plan]") {
  // The duodecoding scenario's SpS is a sampled estimate of chain SD with the draft on the CPU; with
  // --alpha plan keeps only the chain SD scheme's row, whose tokens per iteration is eq. 10's.
  const auto p = plan("--system duodecoding-a800-xeon --model llama-2-7b --draft llama-68m --alpha 0.8");
  int on_cpu = 0;
  for (std::size_t i = 0; i < p.rows.size(); ++i)
    if (p.cell(i, "scheme") == "chain SD" && p.cell(i, "placement").rfind("draft llama-68m on cpu", 0) == 0) {
      ++on_cpu;
      const int gamma = std::stoi(p.cell(i, "parameters").substr(std::string("gamma=").size()));
      const double expected = (1 - std::pow(0.8, gamma + 1)) / 0.2;
      CHECK_THAT(p.cell(i, "why"), Catch::StartsWith(fmt::format("{:.3g} tokens per", expected)));
    }
  CHECK(on_cpu == 1);
  CHECK(p.cell(p.find("DuoDecoding"), "status") == "ok");
}

TEST_CASE("plan with a board of the user's own (a YAML path): each reproduce command names the path and runs", "[plan]") {
  const std::string board = "plan_own_board_b200.yaml";
  {
    std::ifstream in(std::string(SPECDSE_SOURCE_DIR) + "/configs/hardware/h200.yaml");
    std::ofstream out(board);
    for (std::string line; std::getline(in, line);) out << (line.rfind("name:", 0) == 0 ? "name: b200" : line) << "\n";
  }
  const auto p = plan("--hw " + board + " --model llama-3.1-8b-instruct");
  const auto plain = p.find("plain");
  const std::string cmd = p.cell(plain, "reproduce");
  CHECK_THAT(cmd, Catch::Contains("--hw " + board));
  // The command as printed, run from here (without its leading "specdse").
  CHECK(run(cmd.substr(std::string("specdse ").size()) + " --format csv", false).status == 0);
  std::remove(board.c_str());
}

TEST_CASE("plan: a not-applicable reason comes before the file it names, and the file is named relative to the project", "[plan]") {
  const auto p = plan("--hw h100-sxm --model llama-3.1-8b-instruct --context 4096");
  std::string status;
  for (std::size_t i = 0; i < p.rows.size(); ++i)
    if (p.cell(i, "scheme") == "tree SD" && p.cell(i, "rank").empty()) status = p.cell(i, "status");
  CHECK_THAT(status, Catch::StartsWith("not applicable: no AAT measurements for algorithm eagle3-tree"));
  CHECK_THAT(status, Catch::EndsWith("(in configs/acceptance/aat_measurements.csv)"));
  CHECK(status.find(SPECDSE_SOURCE_DIR) == std::string::npos);
}

TEST_CASE("plan at a request rate: TBT and TTFT targets hold for what the served requests saw", "[plan]") {
  const auto p = plan("--hw h100-sxm --model llama-3.1-8b-instruct --request-rate 20 --tbt-limit-ms 5");
  std::size_t missed = 0;
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    if (p.cell(i, "served_tbt_p99_ms").empty()) continue;
    INFO(p.cell(i, "scheme") << ": " << p.cell(i, "status"));
    // Ranked only where the served p99 meets the limit (the default SLO percentile is 99).
    if (!p.cell(i, "rank").empty()) CHECK(p.number(i, "served_tbt_p99_ms") <= 5);
    if (p.cell(i, "status").rfind("misses the TBT limit in the serving simulation at p99", 0) == 0) {
      ++missed;
      CHECK(p.number(i, "served_tbt_p99_ms") > 5);
    }
  }
  CHECK(missed >= 1);
}
