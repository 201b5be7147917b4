// specdse eagle: the dispatcher table for Llama-3.1-8B on an H100 (SD helps at batch 1, the
// tree does not grow with batch), `scenario eagle-dispatcher` agrees, bad input exits 2.
#include <catch2/catch.hpp>

#include "tests/experiments/cli_run.hpp"

#include "models/config_registry.hpp"
#include "models/software_stack.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace {
using cli_test::run;

using cli_test::column;
using cli_test::csv;
}  // namespace

TEST_CASE("specdse eagle: Llama-3.1-8B on H100, speed-up > 1 at batch 1, tree shrinks with batch") {
  const auto r = run("eagle --hw h100-sxm --model llama-3.1-8b-instruct --batch 1,8,128 --context 1024 --format csv");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const auto rows = csv(r.output);
  REQUIRE(rows.size() >= 4);
  const auto& h = rows[0];
  const auto x = column(h, "x"), speedup = column(h, "speedup"), batch = column(h, "batch");
  CHECK(rows[1][batch] == "1");
  CHECK(std::stod(rows[1][speedup]) > 1.0);
  CHECK(std::stoi(rows[2][x]) <= std::stoi(rows[1][x]));
  CHECK(std::stoi(rows[3][x]) <= std::stoi(rows[2][x]));
}

TEST_CASE("specdse eagle: the TPC band holds the positional TPC, is exact for chains and wider for large trees") {
  const auto r = run("eagle --hw h100-sxm --model llama-3.1-8b-instruct --batch 1 --tree N64,D3-BF1 --format csv");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const auto rows = csv(r.output);
  REQUIRE(rows.size() == 2);
  const auto& h = rows[0];
  const auto tpc = column(h, "tpc"), lo = column(h, "tpc_low"), hi = column(h, "tpc_high");
  const auto s = column(h, "speedup"), s_lo = column(h, "speedup_low"), s_hi = column(h, "speedup_high");
  const double t = std::stod(rows[1][tpc]), l = std::stod(rows[1][lo]), u = std::stod(rows[1][hi]);
  CHECK(l <= t);
  CHECK(t <= u);
  CHECK(std::stod(rows[1][s_lo]) <= std::stod(rows[1][s]));
  CHECK(std::stod(rows[1][s]) <= std::stod(rows[1][s_hi]));
  // One tree is chosen per batch; ask for each alone to compare a chain with a 64-node tree.
  const auto chain = csv(run("eagle --hw h100-sxm --model llama-3.1-8b-instruct --batch 1 --tree D3-BF1 --format csv").output);
  const auto big = csv(run("eagle --hw h100-sxm --model llama-3.1-8b-instruct --batch 1 --tree N64 --format csv").output);
  REQUIRE(chain.size() == 2);
  REQUIRE(big.size() == 2);
  // The band's processes reproduce the chains, so a chain's TPC is pinned; a 64-node tree's is not.
  CHECK(std::stod(chain[1][hi]) - std::stod(chain[1][lo]) < 0.03);
  CHECK(std::stod(big[1][hi]) - std::stod(big[1][lo]) > 0.2);
}

TEST_CASE("specdse eagle: bad input is a one-line error with exit 2") {
  for (const std::string args : {"eagle --hw h100-sxm --model llama-3.1-8b-instruct --batch 0",
                                 "eagle --hw h100-sxm --model opt-125m --batch 1",
                                 "eagle --hw h100-sxm --model llama-3.1-8b-instruct --latency-target-ms -1",
                                 "eagle --hw h100-sxm --model llama-3.1-8b-instruct --sd-host-us -5",
                                 "eagle --hw h100-sxm --model llama-3.1-8b-instruct --sd-host-us inf",
                                 "eagle --hw h100-sxm --system eagle-8xh100-nvlink --model llama-3.1-8b-instruct",
                                 "eagle --system eagle-8xh100-nvlink --model llama-3.1-8b-instruct --batch 0",
                                 "eagle --system eagle-8xh100-nvlink --model llama-3.1-8b-instruct --tree D7-BF1",
                                 "eagle --system eagle-8xh100-nvlink --model llama-3.1-8b-instruct --tree D2-BF5",
                                 "eagle --system eagle-8xh100-nvlink --model llama-3.1-8b-instruct --tree N100",
                                 "eagle --hw h100-sxm --model llama-3.1-8b-instruct --max-depth 0",
                                 "eagle --hw h100-sxm --model llama-3.1-8b-instruct --max-depth 7",
                                 "eagle --hw h100-sxm --model llama-3.1-8b-instruct --max-depth 3 --tree D5-BF1",
                                 "eagle --hw h100-sxm --model llama-3.1-8b-instruct --chain-tpc 3:0.9",
                                 "eagle --hw h100-sxm --model llama-3.1-8b-instruct --chain-tpc 3=2.8"}) {
    const auto r = run(args);
    INFO(args << "\n" << r.output);
    CHECK(r.status == 2);
  }
}

TEST_CASE("specdse eagle --chain-tpc: a target without paper 004 figures runs on its own head's measured chains") {
  const std::string base = "eagle --hw h100-sxm --model llama-2-7b --batch 1,8 --context 1024";
  const auto without = run(base);
  CHECK(without.status == 2);
  CHECK_THAT(without.output, Catch::Contains("no paper 004 figures for model 'llama-2-7b'") &&
                                 Catch::Contains("--chain-tpc"));
  const auto r = run(base + " --chain-tpc 3:2.6,5:3.0 --format csv", false);
  REQUIRE(r.status == 0);
  const auto t = csv(r.output);
  REQUIRE(t.size() == 3);
  CHECK(std::stod(t[1][column(t[0], "tpc")]) > 1);
  CHECK(std::stod(t[1][column(t[0], "speedup")]) > 1);
  CHECK_THAT(r.output, Catch::Contains("--chain-tpc"));  // the footer names the acceptance used
}

TEST_CASE("specdse eagle: a head that drafts chains only (MTP modules) is dispatched chains, never trees") {
  const std::string base = "eagle --hw h100-sxm --model mimo-7b --algorithm mimo-7b-mtp --chain-tpc 1:1.9 --batch 1,16";
  const auto r = run(base + " --format csv", false);
  INFO(r.output);
  REQUIRE(r.status == 0);
  const auto t = csv(r.output);
  REQUIRE(t.size() == 3);
  for (std::size_t i = 1; i < t.size(); ++i) {
    const std::string tree = t[i][column(t[0], "tree")];
    CHECK(tree.size() > 4);
    CHECK(tree.substr(tree.size() - 4) == "-BF1");
    CHECK(std::stod(t[i][column(t[0], "x")]) <= 7);  // at most six draft tokens (the head's depth)
  }
  CHECK_THAT(r.output, Catch::Contains("mimo-7b-mtp drafts chains only"));
  const auto shallow = run(base + " --max-depth 2 --format csv", false);
  REQUIRE(shallow.status == 0);
  CHECK_THAT(shallow.output, Catch::Contains("D2-BF1") && Catch::Contains("the longest chain searched (raise --max-depth)"));
  for (const char* tree : {"N8", "D2-BF2"}) {
    const auto e = run(base + " --tree " + tree);
    CHECK(e.status == 2);
    CHECK_THAT(e.output, Catch::Contains("chains only"));
  }
  // An EAGLE head on the same target still searches trees.
  const auto eagle = run("eagle --hw h100-sxm --model mimo-7b --chain-tpc 1:1.9 --batch 1 --format csv", false);
  REQUIRE(eagle.status == 0);
  CHECK(eagle.output.find("drafts chains only") == std::string::npos);
}

TEST_CASE("specdse eagle: an MoE config with top-k above its experts is a one-line error, exit 2") {
  const auto dir = std::filesystem::temp_directory_path() / ("specdse_eagle_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / "bad-moe.yaml").string();
  std::ofstream(path) << "name: llama-4-scout\nlayers: 48\nhidden_size: 5120\nintermediate_size: 16384\n"
                         "attention_heads: 40\nkv_heads: 8\nhead_dim: 128\nvocab_size: 202048\n"
                         "tied_embeddings: false\nmlp: gated\nweight_bits: 16\nactivation_bits: 16\n"
                         "num_experts: 16\nexperts_per_token: 32\nshared_experts: 1\n"
                         "moe_intermediate_size: 8192\nmoe_layer_step: 1\n";
  const auto r = run("eagle --system eagle-8xh100-nvlink --model " + path + " --batch 1");
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK(r.output.find("experts_per_token") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("specdse eagle --system: batch 128 x 8k fits the 8x H100 host (infeasible on one H100)") {
  const auto tp = run("eagle --system eagle-8xh100-nvlink --model llama-3.1-8b-instruct --batch 1,128 --context 8192 "
                      "--format csv");
  INFO(tp.output);
  REQUIRE(tp.status == 0);
  const auto rows = csv(tp.output);
  REQUIRE(rows.size() >= 3);
  const auto status = column(rows[0], "status"), x = column(rows[0], "x"), wait = column(rows[0], "t_wait_ms");
  CHECK(rows[2][status] == "ok");
  CHECK(std::stoi(rows[2][x]) <= std::stoi(rows[1][x]));
  CHECK(std::stod(rows[1][wait]) > 0);  // the all-reduces are on the step's critical path
  const auto one = run("eagle --hw h100-sxm --model llama-3.1-8b-instruct --batch 128 --context 8192 --format csv");
  INFO(one.output);
  REQUIRE(one.status == 0);
  const auto one_rows = csv(one.output);
  REQUIRE(one_rows.size() >= 2);
  CHECK(one_rows[1][column(one_rows[0], "status")].find("infeasible") == 0);
}

TEST_CASE("specdse scenario eagle-dispatcher runs on the same inputs") {
  const auto r = run("scenario eagle-dispatcher --hw h100-sxm --model llama-3.1-8b-instruct --algorithm eagle3-chain "
                     "--context 1024 --param batch=1,4 --format csv");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(csv(r.output).size() >= 3);
}

TEST_CASE("specdse scenario eagle-dispatcher over the TP system agrees with specdse eagle --system") {
  // Both on paper 004's draft (the eagle command's default).
  const auto sc = run("scenario eagle-dispatcher --model llama-3.1-8b-instruct --algorithm eagle-dense3-chain --context 8192 "
                      "--param batch=1,128 --param system=eagle-8xh100-nvlink --format csv");
  INFO(sc.output);
  REQUIRE(sc.status == 0);
  const auto ev = run("eagle --system eagle-8xh100-nvlink --model llama-3.1-8b-instruct --batch 1,128 --context 8192 "
                      "--format csv");
  REQUIRE(ev.status == 0);
  const auto a = csv(sc.output), b = csv(ev.output);
  REQUIRE(a.size() >= 3);
  REQUIRE(b.size() >= 3);
  for (int i : {1, 2}) CHECK(a[i][column(a[0], "tree")] == b[i][column(b[0], "tree")]);
}

TEST_CASE("specdse eagle --max-depth bounds every candidate tree, down to a single level") {
  for (int depth : {1, 2, 3}) {
    const auto r = run("eagle --hw h100-sxm --model llama-3.1-8b-instruct --batch 1,64 --context 1024 --max-depth " +
                       std::to_string(depth) + " --format csv");
    INFO("--max-depth " << depth << "\n" << r.output);
    REQUIRE(r.status == 0);
    const auto rows = csv(r.output);
    REQUIRE(rows.size() == 3);
    for (std::size_t i = 1; i < rows.size(); ++i) {
      const std::string tree = rows[i][column(rows[0], "tree")];
      const int x = std::stoi(rows[i][column(rows[0], "x")]);
      // A tree of depth <= D holds at most 4 + 16 + ... nodes and, as a chain, D + 1 tokens.
      if (tree[0] == 'D') CHECK(std::stoi(tree.substr(1)) <= depth);
      if (depth == 1) CHECK(x <= 5);  // the root and at most 4 candidates
    }
  }
}

TEST_CASE("eagle: a tree as large as --max-nodes is flagged, and a larger --max-nodes searches beyond N64") {
  const std::string base = "eagle --hw h100-sxm --model llama-3.1-8b-instruct --batch 1 --format csv";
  const auto rows_of = [](const std::string& out) { return cli_test::csv(out); };
  const auto at64 = rows_of(run(base, false).output);
  const auto wide = rows_of(run(base + " --max-nodes 1024", false).output);
  REQUIRE(at64.size() == 2);
  REQUIRE(wide.size() == 2);
  const auto col = [&](const std::vector<std::vector<std::string>>& t, const std::string& name) {
    return t[1][cli_test::column(t[0], name)];
  };
  // At the default bound batch 1 takes N64, the largest tree searched: flagged.
  CHECK(col(at64, "tree") == "N64");
  CHECK_THAT(col(at64, "at_search_limit"), Catch::Contains("the largest tree searched (raise --max-nodes)"));
  // With room, a larger tree wins and is interior: not flagged, and faster than N64.
  const int x = std::stoi(col(wide, "x"));
  CHECK(x > 65);
  CHECK(x < 1025);
  CHECK(col(wide, "at_search_limit").empty());
  CHECK(std::stod(col(wide, "speedup")) > std::stod(col(at64, "speedup")));
}

namespace {

// Column `name` of the first data row of a command's CSV output.
double first_row(const std::string& args, const std::string& name) {
  const auto r = run(args + " --format csv", false);
  INFO(args << "\n" << r.output);
  REQUIRE(r.status == 0);
  const auto rows = csv(r.output);
  REQUIRE(rows.size() >= 2);
  return std::stod(rows[1][column(rows.front(), name)]);
}

}  // namespace

TEST_CASE("eagle and optimize agree on plain decoding once the dispatcher's host time is taken out") {
  // optimize --hw without --stack times the bare kernels (its AD step); the dispatcher adds its
  // stack's host work per decode step (paper 004 counts it): the two AD steps differ by exactly that.
  const std::string w = " --hw h100-sxm --model llama-3.1-8b-instruct --context 1024";
  const double optimize_ad_s = 1 / first_row("optimize --algorithm eagle3-chain" + w, "ar_tokens_per_s");
  const double eagle_ad_s = first_row("eagle --batch 1" + w, "ar_step_ms") * 1e-3;
  const models::ConfigRegistry reg;
  const double host_s = search::eagle_host_seconds(models::load_software_stack(reg.path("stacks", "vllm-cuda-graph")), models::HostSpec{}, 1);
  CHECK(host_s > 0);
  CHECK(eagle_ad_s == Approx(optimize_ad_s + host_s).epsilon(1e-6));
}

TEST_CASE("eagle --trace-out writes the chosen tree's decode step, its phases summing to the row's TTIT") {
  const auto trace = std::filesystem::temp_directory_path() / ("specdse_test_eagle_trace_" + std::to_string(::getpid()) + ".json");
  std::filesystem::remove(trace);
  const auto r = run("eagle --hw h100-sxm --model llama-3.1-8b-instruct --batch 4 --context 1024 --format csv --trace-out " +
                         trace.string(),
                     false);
  INFO(r.output);
  REQUIRE(r.status == 0);
  const auto rows = csv(r.output);
  const double ttit_ms = std::stod(rows[1][column(rows.front(), "ttit_ms")]);
  std::ifstream in(trace);
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(trace);
  CHECK(json.find("head pass 1") != std::string::npos);
  CHECK(json.find("verify tree") != std::string::npos);
  // The last phase ends at the step's TTIT (microseconds in the trace, printed to 1 ns).
  double last_us = 0;
  for (std::size_t at = json.find("\"complete_us\":"); at != std::string::npos; at = json.find("\"complete_us\":", at + 1))
    last_us = std::max(last_us, std::stod(json.substr(at + 14)));
  CHECK(last_us * 1e-3 == Approx(ttit_ms).epsilon(1e-6));
}

TEST_CASE("specdse eagle --policy paper-example: the chosen tree at batch 1, a chain of 3 above, never faster than best") {
  // Paper 004 §3.4's example dispatcher: "a static tree when batch size is 1 and a chain draft of 3
  // tokens when batch size is larger than 1".
  const std::string args = "eagle --hw h100-sxm --model llama-3.1-8b-instruct --format csv";
  const auto best = run(args, false), example = run(args + " --policy paper-example", false);
  REQUIRE(best.status == 0);
  REQUIRE(example.status == 0);
  CHECK_THAT(example.output, Catch::Contains("paper 004 §3.4's example"));
  const auto b = csv(best.output), e = csv(example.output);
  REQUIRE(b.size() == e.size());
  REQUIRE(b.size() > 3);
  const auto& h = b[0];
  for (std::size_t i = 1; i < b.size(); ++i) {
    INFO("batch " << e[i][column(h, "batch")]);
    REQUIRE(e[i][column(h, "batch")] == b[i][column(h, "batch")]);
    if (e[i][column(h, "batch")] == "1") CHECK(e[i] == b[i]);
    else CHECK(e[i][column(h, "tree")] == "D3-BF1");
    // The dispatcher maximises the speed-up at every batch: a fixed rule is at best its equal.
    CHECK(std::stod(e[i][column(h, "speedup")]) <= std::stod(b[i][column(h, "speedup")]) + 1e-12);
  }
  for (const auto& [bad, what] : std::vector<std::pair<std::string, std::string>>{
           {" --policy paper-example --tree N8", "--tree"},
           {" --policy paper-example --max-depth 2", "--max-depth 2"},
           {" --policy nope", "policy"}}) {
    const auto r = run("eagle --hw h100-sxm --model llama-3.1-8b-instruct" + bad);
    INFO(bad << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(what));
  }
}
