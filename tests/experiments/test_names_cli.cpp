// Names that forgive: every misspelt flag, command, config name and sweep key is one line on
// stderr with "did you mean" and the closest known name, exit status 2; `specdse list` names
// what there is.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <yaml-cpp/yaml.h>

#include "experiments/sweep/sweep_spec.hpp"
#include "models/software_stack.hpp"
#include "tests/experiments/cli_run.hpp"

using cli_test::run;

namespace {

// One line naming the typo and its closest known name, exit 2.
void expect_guess(const std::string& args, const std::string& typo, const std::string& meant) {
  INFO("specdse " << args);
  const auto r = run(args);
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::StartsWith("specdse: error: ") && Catch::Contains(typo) &&
                           Catch::Contains("did you mean ") && Catch::Contains("'" + meant + "'?"));
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
}

const std::string kOptimize = "optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree ";

std::string write_spec(const std::string& name, const std::string& axes) {
  const auto dir = std::filesystem::path(SPECDSE_TEST_BINARY_DIR) / "names_cli";
  std::filesystem::create_directories(dir);
  const auto path = dir / (name + ".yaml");
  std::ofstream(path) << "name: " << name << "\nengine: roofline\naxes:\n  hardware: h100-sxm\n"
                      << "  model: llama-3.1-8b-instruct\n  algorithm: longspec-tree\n" << axes;
  return path.string();
}

}  // namespace

TEST_CASE("A misspelt flag is named with the closest flag, not reported as a missing required one") {
  // --contexts once gave "--context is required", --hardware "--hw is required".
  expect_guess(kOptimize + "--contexts 128", "unknown option '--contexts' for 'optimize'", "--context");
  expect_guess(kOptimize + "--contexts=128", "'--contexts'", "--context");
  expect_guess("latency --hardware v80 --model llama-3.1-8b-instruct", "unknown option '--hardware'", "--hw");
  expect_guess("eagle --hw h100-sxm --model llama-3.1-8b-instruct --batchsize 4", "'--batchsize' for 'eagle'",
               "--batch");
  expect_guess("sweep merge --ouy x", "'--ouy' for 'sweep merge'", "--out");
  // Far from every flag: named, with where to look.
  const auto far = run("latency --hw v80 --model llama-3.1-8b-instruct --frobnicate");
  CHECK(far.status == 2);
  CHECK_THAT(far.output, Catch::Contains("unknown option '--frobnicate'") && Catch::Contains("--help"));
  CHECK(std::count(far.output.begin(), far.output.end(), '\n') == 1);
  // Negative numbers stay values, and a required flag that is really missing is still reported.
  const auto missing = run("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree");
  CHECK(missing.status == 2);
  CHECK_THAT(missing.output, Catch::Contains("--context is required"));
}

TEST_CASE("A misspelt command or choice is named with the closest one") {
  expect_guess("optimise --hw v80", "unknown command 'optimise'", "optimize");
  expect_guess("--config-dir " + std::string(SPECDSE_CONFIG_DIR) + " lates", "unknown command 'lates'", "latency");
  expect_guess("latency --hw v80 --model llama-3.1-8b-instruct --engine sims", "sims", "sim");
  expect_guess("reproduce tabel1", "unknown name 'tabel1'", "table1");
  const auto xml = run("latency --hw v80 --model llama-3.1-8b-instruct --format xml");
  CHECK(xml.status == 2);
  CHECK_THAT(xml.output, !Catch::Contains("did you mean"));
}

TEST_CASE("A config name cut short or misspelt is named with the closest shipped config") {
  expect_guess("latency --hw h100 --model llama-3.1-8b-instruct", "unknown hardware 'h100'", "h100-sxm");
  expect_guess("latency --hw h100-sxm --model llama-3.1-8b", "'llama-3.1-8b'", "llama-3.1-8b-instruct");
  expect_guess(kOptimize.substr(0, kOptimize.find("--algorithm")) + "--algorithm longspec-tre --context 128",
               "unknown algorithm 'longspec-tre'", "longspec-tree");
  expect_guess("system --system specpipe-8x3090 --model llama-3.1-70b --x 1 --context 128 --batch 1",
               "'specpipe-8x3090'", "specpipe-8x3090-pcie");
  expect_guess("latency --hw v80 --model llama-3.1-8b-instruct --stack vllm-cuda", "'vllm-cuda'", "vllm-cuda-graph");
  expect_guess("scenario tree_sd", "tree_sd", "tree-sd");
}

TEST_CASE("A misspelt sweep axis is an unknown axis naming the closest, not a missing one") {
  // contexts: once gave "axes.context: got nothing", batchsize: a missing hardware key.
  expect_guess("sweep --spec " + write_spec("contexts", "  contexts: [1024]\n"), "axes.contexts: unknown axis",
               "context");
  expect_guess("sweep --spec " + write_spec("batchsize", "  context: [1024]\n  batchsize: [1, 4]\n"),
               "axes.batchsize: unknown axis", "batch");
  expect_guess("sweep --spec " + write_spec("taks", "  context: [1024]\n  taks: [govreport]\n"), "axes.taks", "task");
  // A hardware key is looked up in the board when the point runs (the CSV header is out by then:
  // --out keeps stdout quiet).
  const auto out = std::filesystem::path(SPECDSE_TEST_BINARY_DIR) / "names_cli" / "bandwith.csv";
  std::filesystem::remove(out.string() + ".partial");
  expect_guess("sweep --spec " + write_spec("bandwith", "  context: [1024]\n  memory.bandwith_gbs: [100]\n") +
                   " --out " + out.string(),
               "no key memory.bandwith_gbs", "memory.bandwidth_gbs");
  std::filesystem::remove(out.string() + ".partial");
  expect_guess("sweep --spec " + write_spec("engin", "  context: [1024]\nengin: sim\n"), "engin", "engine");
}

TEST_CASE("No shipped board's top-level key reads as a misspelt workload axis") {
  // Such a key could not be swept: misspelt_workload_axis refuses it before the board is read.
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(SPECDSE_CONFIG_DIR) / "hardware")) {
    if (e.path().extension() != ".yaml") continue;
    for (const auto& kv : YAML::LoadFile(e.path().string())) {
      INFO(e.path().string() << ": " << kv.first.Scalar());
      CHECK(experiments::misspelt_workload_axis(kv.first.Scalar()).empty());
    }
  }
  CHECK(experiments::misspelt_workload_axis("contexts") == "context");
  CHECK(experiments::misspelt_workload_axis("memory.bandwidth_gbs").empty());
}

TEST_CASE("specdse list names every category with its count, and each category's shipped names") {
  const auto all = run("list --format csv", false);
  REQUIRE(all.status == 0);
  const auto rows = cli_test::csv(all.output);
  REQUIRE(rows.size() == 11);
  CHECK(rows[0] == std::vector<std::string>{"category", "count", "holds"});
  for (const char* c :
       {"models", "hardware", "systems", "links", "stacks", "hosts", "algorithms", "acceptance", "scenarios", "validation"})
    CHECK_THAT(all.output, Catch::Contains(std::string("\n") + c + ","));
  const auto expect_names = [](const std::string& category, const std::vector<std::string>& names) {
    const auto r = run("list " + category + " --format csv", false);
    INFO("list " << category);
    REQUIRE(r.status == 0);
    const auto t = cli_test::csv(r.output);
    REQUIRE(t.size() > 1);
    CHECK(t[0][0] == "name");
    CHECK((t[0][1] == "description" || t[0][2] == "description"));
    for (const auto& n : names) {
      INFO(n);
      CHECK(std::any_of(t.begin() + 1, t.end(), [&](const auto& row) { return row[0] == n; }));
    }
    for (std::size_t i = 1; i < t.size(); ++i) {
      const std::size_t d = cli_test::column(t[0], "description");
      CHECK_FALSE(t[i][d].empty());
      CHECK_THAT(t[i][d], !Catch::Contains("does not load"));
    }
  };
  expect_names("models", {"llama-3.1-8b-instruct", "llama-68m", "llama-4-scout"});
  expect_names("hardware", {"h100-sxm", "v80", "xeon-16c"});
  expect_names("systems", {"specpipe-8x3090-pcie", "duodecoding-a800-xeon", "eagle-8xh100-nvlink"});
  expect_names("links", {"pcie4-x16", "nvlink4", "eth-10g"});
  expect_names("stacks", {"vllm-cuda-graph", "llama-cpp", "pytorch-eager"});
  expect_names("hosts", {"reference"});
  expect_names("algorithms", {"longspec-tree", "eagle3-tree"});
  expect_names("acceptance", {"llama-3.1-8b-instruct/eagle3-tree/govreport", "paper003-table4", "duodecoding-paper003"});
  expect_names("scenarios", {"tree-sd", "specpipe", "duodecoding", "eagle-dispatcher", "chain-sd"});
}

TEST_CASE("specdse list: facts of models, hardware, systems and acceptance coverage") {
  const auto sys = run("list systems --format csv", false);
  REQUIRE(sys.status == 0);
  CHECK_THAT(sys.output, Catch::Contains("gpu0-gpu7: rtx3090") && Catch::Contains("cpu: xeon-16c"));
  const auto hw = run("list hardware --format json", false);
  REQUIRE(hw.status == 0);
  CHECK_THAT(hw.output, Catch::Contains("\"kind\": \"fpga\"") && Catch::Contains("NVIDIA H100 SXM5 80GB"));
  // A stack's host figures, the proposer's per draft pass among them.
  const auto stacks = run("list stacks --format csv", false);
  REQUIRE(stacks.status == 0);
  const auto st = cli_test::csv(stacks.output);
  const std::size_t per_pass = cli_test::column(st[0], "per_draft_pass_host_us");
  for (std::size_t i = 1; i < st.size(); ++i) {
    INFO(st[i][0]);
    const double expected =
        models::load_software_stack(std::string(SPECDSE_CONFIG_DIR) + "/stacks/" + st[i][0] + ".yaml").per_draft_pass_host_us;
    CHECK(std::stod(st[i][per_pass]) == expected);
    if (st[i][0] == "vllm-v1-inprocess") CHECK(expected > 0);
  }
  const auto acc = run("list acceptance --format csv", false);
  REQUIRE(acc.status == 0);
  const auto t = cli_test::csv(acc.output);
  bool eagle = false;
  for (const auto& row : t)
    if (row[0] == "llama-3.1-8b-instruct/eagle3-tree/govreport") {
      eagle = true;
      CHECK(row[cli_test::column(t[0], "contexts")] == "128,256,512,1024,2048");
      CHECK(row[cli_test::column(t[0], "kind")] == "measured");
    }
  CHECK(eagle);
  // One name: its category's row alone; the singular of a category is the category.
  const auto one = run("list h100-sxm --format csv", false);
  REQUIRE(one.status == 0);
  CHECK(cli_test::csv(one.output).size() == 2);
  CHECK_THAT(one.output, Catch::Contains("h100-sxm,gpu,"));
  CHECK(run("list model --format csv", false).output == run("list models --format csv", false).output);
}

TEST_CASE("specdse list: a name found nowhere names the closest one and its category") {
  expect_guess("list h100", "'h100' is neither a category nor a name", "h100-sxm");
  CHECK_THAT(run("list h100").output, Catch::Contains("'h100-sxm'? see specdse list hardware)"));
  expect_guess("list llama-3.1-8b", "'llama-3.1-8b'", "llama-3.1-8b-instruct");
  CHECK_THAT(run("list llama-3.1-8b").output, Catch::Contains("see specdse list models"));
  expect_guess("list modles", "'modles'", "models");
}

TEST_CASE("A copied board that keeps a shipped board's name is labelled by its file") {
  const auto dir = std::filesystem::path(SPECDSE_TEST_BINARY_DIR) / "names_cli";
  std::filesystem::create_directories(dir);
  const auto shipped = std::filesystem::path(SPECDSE_CONFIG_DIR) / "hardware" / "v80.yaml";
  const auto copy = dir / "my-board.yaml", same_stem = dir / "v80.yaml";
  std::filesystem::copy_file(shipped, copy, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(shipped, same_stem, std::filesystem::copy_options::overwrite_existing);
  const auto label = [](const std::string& hw) {
    const auto r = run("latency --hw " + hw + " --model llama-3.1-8b-instruct --x 1 --context 128 --format csv", false);
    REQUIRE(r.status == 0);
    const auto t = cli_test::csv(r.output);
    REQUIRE(t.size() == 2);
    return t[1][cli_test::column(t[0], "hw")];
  };
  CHECK(label(copy.string()) == "my-board");
  CHECK(label(same_stem.string()) == same_stem.string());
  CHECK(label("v80") == "v80");
  CHECK(label(shipped.string()) == "v80");
}

TEST_CASE("duo names the flag that named a missing device, with the closest device") {
  const std::string duo = "duo --system duodecoding-a800-xeon --model llama-2-7b --draft llama-68m ";
  expect_guess(duo + "--sps-draft-device cpuu", "--sps-draft-device: system 'duodecoding-a800-xeon' has no device 'cpuu'",
               "cpu");
  expect_guess(duo + "--draft-device gpuu", "--draft-device: system", "gpu");
}
