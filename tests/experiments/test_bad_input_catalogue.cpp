// A catalogue of bad inputs: each class runs the `specdse` executable on one bad
// input and asserts the contract of the subcommands (README, docs/cli.md): exit status 2,
// exactly one line on stderr naming the offending file / key / option / value, nothing that
// reads as NaN or infinity on stdout, and no hang (every run is under `timeout`, so a hang
// fails as status 124 instead of stalling the suite). One TEST_CASE per class, so CTest lists
// and counts them.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "tests/experiments/cli_run.hpp"

#include "models/system_spec.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

// Generous for the slowest case (a sim engine on one step); a hang trips it, a slow path does not.
constexpr int kHangLimitSeconds = 60;

struct Outcome {
  int status;
  std::string out, err;
};

fs::path scratch_dir() {
  const fs::path d = fs::path(SPECDSE_TEST_BINARY_DIR) / "bad_input_catalogue";
  fs::create_directories(d);
  return d;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes `text` to a file of the scratch folder; returns its path.
std::string write_file(const std::string& name, const std::string& text) {
  const fs::path p = scratch_dir() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

// A shipped config with `from` replaced by `to` (the first occurrence), written as `name`.
std::string edited_config(const std::string& shipped, const std::string& name, const std::string& from,
                          const std::string& to) {
  std::string text = read_all(fs::path(SPECDSE_CONFIG_DIR) / shipped);
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return write_file(name, text);
}

// A fresh copy of the shipped config folder in the scratch folder (`stem` + this process's pid),
// for a case that edits configs.
fs::path copied_configs(const std::string& stem) {
  const fs::path cfg = scratch_dir() / (stem + std::to_string(getpid()));
  fs::remove_all(cfg);
  fs::copy(fs::path(SPECDSE_SOURCE_DIR) / "configs", cfg, fs::copy_options::recursive);
  return cfg;
}

// The executable under test: this build's, or $SPECDSE_CATALOGUE_EXE to tally another build
// (an older one, say) against the same catalogue.
std::string specdse_exe() {
  const char* e = std::getenv("SPECDSE_CATALOGUE_EXE");
  return e && *e ? e : SPECDSE_SPECDSE_EXE;
}

Outcome run_split(const std::string& args) {
  static int counter = 0;
  // The pid keeps parallel CTest runs (one process per case) off each other's files.
  const fs::path err = scratch_dir() / ("stderr_" + std::to_string(getpid()) + "_" + std::to_string(++counter) + ".txt");
  const std::string cmd = "timeout " + std::to_string(kHangLimitSeconds) + " " + specdse_exe() +
                          " " + args + " 2>" + err.string();
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[512];
  while (fgets(buf, sizeof buf, p)) out += buf;
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out, read_all(err)};
}

// The contract for one bad input; `needles` are what the one line must name.
void expect_rejected(const std::string& args, const std::vector<std::string>& needles) {
  INFO("specdse " << args);
  const Outcome r = run_split(args);
  INFO("stderr: " << r.err);
  INFO("stdout: " << r.out.substr(0, 400));
  CHECK(r.status == 2);
  CHECK(!r.err.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.back() == '\n');
  for (const auto& n : needles) CHECK_THAT(r.err, Catch::Contains(n));
  CHECK_THAT(r.err, !Catch::Contains("internal error"));
  static const std::regex non_finite(R"((^|[^a-z])(nan|inf|infinity)([^a-z]|$))", std::regex::icase);
  CHECK_FALSE(std::regex_search(r.out, non_finite));
}

const std::string kLatency = "latency --hw v80 --model llama-3.1-8b-instruct ";
const std::string kModel = "models/llama-3.1-8b-instruct.yaml";

}  // namespace

// ---- model YAML -------------------------------------------------------------------------------

TEST_CASE("catalogue 01: model YAML with a misspelt key names it and the closest known key") {
  // An optional key (weight_format) misspelt used to be ignored: the model ran in FP16.
  const auto f = edited_config(kModel, "typo_model.yaml", "weight_bits: 16", "weight_bits: 16\nweight_fromat: q8_0");
  expect_rejected("latency --hw v80 --model " + f, {f, "weight_fromat", "did you mean 'weight_format'"});
}

TEST_CASE("catalogue 02: model YAML integer above the int range (hidden_size 2^31) is an error, not a negative time") {
  const auto f = edited_config(kModel, "narrow_hidden.yaml", "hidden_size: 4096", "hidden_size: 2147483648");
  expect_rejected("latency --hw v80 --model " + f, {f, "hidden_size", "2147483648"});
}

TEST_CASE("catalogue 03: model YAML layers 2^32 + 32 does not wrap to 32") {
  const auto f = edited_config(kModel, "narrow_layers.yaml", "layers: 32", "layers: 4294967328");
  expect_rejected("latency --hw v80 --model " + f, {f, "layers", "4294967328"});
}

TEST_CASE("catalogue 04: model YAML with a word where a number belongs") {
  const auto f = edited_config(kModel, "word_heads.yaml", "head_dim: 128", "head_dim: wide");
  expect_rejected("latency --hw v80 --model " + f, {f, "head_dim", "wide"});
}

TEST_CASE("catalogue 05: model YAML that is a list where a map is expected") {
  const auto f = write_file("list_model.yaml", "- name: x\n- layers: 2\n");
  expect_rejected("latency --hw v80 --model " + f, {f, "top level", "a map"});
}

TEST_CASE("catalogue 06: empty model YAML") {
  const auto f = write_file("empty_model.yaml", "");
  expect_rejected("latency --hw v80 --model " + f, {f});
}

TEST_CASE("catalogue 07: binary file given as a model YAML") {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += char((i * 37 + 11) & 0xff);
  const auto f = write_file("binary_model.yaml", bytes);
  expect_rejected("latency --hw v80 --model " + f, {f});
}

TEST_CASE("catalogue 08: model YAML with a negative size") {
  const auto f = edited_config(kModel, "negative_vocab.yaml", "vocab_size: 128256", "vocab_size: -5");
  expect_rejected("latency --hw v80 --model " + f, {f, "vocab_size", "-5"});
}

TEST_CASE("catalogue 09: model YAML with a fractional integer") {
  const auto f = edited_config(kModel, "fraction_layers.yaml", "layers: 32", "layers: 32.5");
  expect_rejected("latency --hw v80 --model " + f, {f, "layers", "32.5"});
}

// ---- algorithm YAML ---------------------------------------------------------------------------

TEST_CASE("catalogue 10: algorithm YAML with a misspelt top-level key") {
  const auto f = edited_config("algorithms/longspec-tree.yaml", "typo_alg.yaml", "description:", "descripton:");
  expect_rejected(kLatency + "--draft " + f, {f, "descripton", "did you mean 'description'"});
}

TEST_CASE("catalogue 11: algorithm YAML with a misspelt key in its draft block") {
  const auto f = edited_config("algorithms/longspec-tree.yaml", "typo_draft.yaml", "self_attention_window_tokens:",
                               "self_attention_window_token:");
  expect_rejected(kLatency + "--draft " + f, {f, "draft.self_attention_window_token", "did you mean"});
}

TEST_CASE("catalogue 12: algorithm YAML draft size beyond the int range") {
  const auto f = edited_config("algorithms/eagle3-tree.yaml", "narrow_eagle.yaml", "draft_vocab_size: 32000",
                               "draft_vocab_size: 4294999296");
  expect_rejected(kLatency + "--draft " + f, {f, "draft_vocab_size", "4294999296"});
}

TEST_CASE("catalogue 13: algorithm tree shape whose node count does not match x") {
  const auto f = edited_config("algorithms/longspec-tree.yaml", "bad_shape.yaml", "4: [2, 1]", "4: [2, 1, 1]");
  expect_rejected(kLatency + "--draft " + f, {f, "shapes.4"});
}

TEST_CASE("catalogue 14: algorithm tree given as a list where a map is expected") {
  const auto f = write_file("list_tree.yaml",
                            "name: t\ndraft:\n  type: longspec\n  self_attention_window_tokens: 512\ntree: [1, 2]\n");
  expect_rejected(kLatency + "--draft " + f, {f, "tree", "a map"});
}

// ---- hardware and system YAML -----------------------------------------------------------------

TEST_CASE("catalogue 15: hardware YAML with a misspelt key") {
  const auto f = edited_config("hardware/v80.yaml", "typo_hw.yaml", "verify_includes_lm_head:",
                               "verify_include_lm_head:");
  expect_rejected("latency --model llama-3.1-8b-instruct --hw " + f, {f, "verify_include_lm_head", "did you mean"});
}

TEST_CASE("catalogue 16: hardware YAML integer beyond the int range") {
  const auto f = edited_config("hardware/h100-sxm.yaml", "narrow_hw.yaml", "sms: 132", "sms: 4294967428");
  expect_rejected("latency --model llama-3.1-8b-instruct --hw " + f, {f, "sms", "4294967428"});
}

TEST_CASE("catalogue 17: hardware YAML with a negative bandwidth") {
  const auto f = edited_config("hardware/h100-sxm.yaml", "negative_bw.yaml", "bandwidth_gbs: ", "bandwidth_gbs: -");
  expect_rejected("latency --model llama-3.1-8b-instruct --hw " + f, {f, "bandwidth_gbs"});
}

TEST_CASE("catalogue 18: system YAML with an unknown key") {
  const auto f = edited_config("systems/specpipe-8x3090-pcie.yaml", "typo_system.yaml", "placement:", "placment:");
  expect_rejected("system --model llama-3.1-70b --system " + f, {f, "placment", "did you mean 'placement'"});
}

TEST_CASE("catalogue 19: a config name that does not exist is reported as given") {
  expect_rejected("latency --hw v80 --model nope.yaml", {"'nope.yaml'"});
  const Outcome r = run_split("latency --hw v80 --model nope.yaml");
  CHECK_THAT(r.err, !Catch::Contains("nope.yaml.yaml"));
}

// ---- command-line values ----------------------------------------------------------------------

TEST_CASE("catalogue 20: --x 0, -3, 1e9 and the backwards range 1-0") {
  expect_rejected(kLatency + "--x 0", {"--x", "0"});
  expect_rejected(kLatency + "--x -3", {"--x", "-3"});
  expect_rejected(kLatency + "--x 1e9", {"--x", "1e9"});
  expect_rejected(kLatency + "--x 1-0", {"--x", "1-0"});
}

TEST_CASE("catalogue 21: --x beyond what one step can verify") {
  expect_rejected(kLatency + "--x 1000000000", {"--x", "1000000000"});
}

TEST_CASE("catalogue 22: --context -1 and 1e12 written as a float") {
  expect_rejected(kLatency + "--context -1", {"--context", "-1"});
  expect_rejected(kLatency + "--context 1e12", {"--context", "1e12"});
}

TEST_CASE("catalogue 23: --context 0 where no acceptance data exists for it") {
  expect_rejected("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 0",
                  {"context 0"});
}

TEST_CASE("catalogue 24: a context past 10^7 tokens is refused (every command, every engine), a 9 x 10^6 one on an H100 is infeasible") {
  expect_rejected("latency --hw h100-sxm --model llama-3.1-8b-instruct --context 1000000000000", {"--context", "10000000"});
  // 2^63 - 1 used to loop in the list parser (its counter wrapped) and then pass the memory check.
  expect_rejected("latency --hw h100-sxm --model llama-3.1-8b-instruct --context 9223372036854775807",
                  {"--context", "10000000"});
  expect_rejected("latency --hw h100-sxm --model llama-3.1-8b-instruct --context 9223372036854775000-9223372036854775807",
                  {"--context"});
  expect_rejected("system --system specpipe-8x3090-pcie --model llama-3.1-70b --context 10000001", {"--context"});
  expect_rejected("scenario tree-sd --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 20000000",
                  {"--context"});
  expect_rejected("latency --hw h100-sxm --model llama-3.1-8b-instruct --context 9000000", {"infeasible", "GiB"});
}

TEST_CASE("catalogue 25: a 9 x 10^6-token context on the sim engines is infeasible, not a crash") {
  for (const char* engine : {"sim", "sim-clocked"})
    expect_rejected(std::string("latency --hw h100-sxm --model llama-3.1-8b-instruct --context 9000000 --engine ") +
                        engine,
                    {"infeasible"});
}

TEST_CASE("catalogue 25b: an acceptance probability that is NaN, negative or 1 is refused, not read as not given") {
  const std::string optimize = "optimize --hw h100-sxm --model llama-3.1-8b-instruct --algorithm longspec-chain --context 1024 ";
  for (const char* alpha : {"nan", "-0.1", "0", "1", "inf"}) {
    expect_rejected(optimize + "--alpha " + alpha, {"--alpha", alpha});
    expect_rejected(std::string("duo --system duodecoding-a800-xeon --model llama-2-7b --draft llama-68m@q5_k_m --alpha ") +
                        alpha,
                    {"--alpha", alpha});
  }
}

TEST_CASE("catalogue 25c: duo bounds its token counts and eagle refuses devices that are not GPUs") {
  const std::string duo = "duo --system duodecoding-a800-xeon --model llama-2-7b --draft llama-68m@q5_k_m ";
  expect_rejected(duo + "--tokens 4294967297", {"--tokens", "4294967297"});
  expect_rejected(duo + "--prompt 4294967297", {"--prompt", "4294967297"});
  expect_rejected("eagle --hw v80 --model llama-3.1-8b-instruct", {"v80", "GPU"});
  expect_rejected("eagle --hw xeon-16c --model llama-3.1-8b-instruct", {"xeon-16c", "GPU"});
}

TEST_CASE("catalogue 26: a 70B model at batch 64 on a 24 GB GPU is infeasible") {
  expect_rejected("latency --hw rtx3090 --model llama-3.1-70b --batch 64", {"infeasible", "rtx3090"});
}

TEST_CASE("catalogue 27: optimize with a context that does not fit the device is infeasible, not timed") {
  expect_rejected("optimize --hw h100-sxm --model llama-3.1-8b-instruct --algorithm eagle3-chain --alpha 0.7 "
                  "--context 9000000",
                  {"infeasible"});
}

TEST_CASE("catalogue 28: --batch 0 gets the project's message, not CLI11's range dump") {
  expect_rejected(kLatency + "--batch 0", {"--batch", "0"});
  const Outcome r = run_split(kLatency + "--batch 0");
  CHECK_THAT(r.err, !Catch::Contains("0.000000"));
}

TEST_CASE("catalogue 29: --batch 1,8 on a command that takes one batch says so") {
  expect_rejected("system --system specpipe-8x3090-pcie --model llama-3.1-70b --batch 1,8", {"--batch", "1,8", "one"});
}

TEST_CASE("catalogue 30: --threads 0 and 10000") {
  const auto spec = std::string(SPECDSE_CONFIG_DIR) + "/sweeps/compute_bandwidth_ratio.yaml";
  expect_rejected("sweep --spec " + spec + " --threads 0", {"--threads", "0"});
  expect_rejected("sweep --spec " + spec + " --threads 10000", {"--threads", "10000"});
}

TEST_CASE("catalogue 31: --format xml") {
  expect_rejected(kLatency + "--format xml", {"--format", "xml"});
}

TEST_CASE("catalogue 32: an unknown option and an unknown subcommand") {
  expect_rejected(kLatency + "--bogus 3", {"--bogus"});
  expect_rejected("latencyy --hw v80", {"latencyy"});
}

TEST_CASE("catalogue 33: a sweep spec whose grid is too large to run") {
  const auto f = write_file("huge_sweep.yaml",
                            "name: huge\nengine: roofline\nx_max: 128\naxes:\n  hardware: v80\n"
                            "  model: llama-3.1-8b-instruct\n  algorithm: longspec-tree\n  task: govreport\n"
                            "  context: [1024]\n  memory.bandwidth_gbs: {from: 10, to: 100000, count: 100000000, scale: log}\n");
  expect_rejected("sweep --spec " + f + " --out " + (scratch_dir() / "huge.csv").string(), {f});
}

TEST_CASE("catalogue 34: a malformed acceptance trace names the file and line") {
  const auto f = write_file("bad_trace.txt", "0 1\n0\n0 x 2\n");
  expect_rejected("tree-search --trace " + f + " --max-nodes 8", {f + ":3:", "'x'"});
}

TEST_CASE("catalogue 35: a binary file given as a trace") {
  std::string bytes = "0 1\n";
  for (int i = 0; i < 64; ++i) bytes += char(0x80 + i);
  const auto f = write_file("binary_trace.txt", bytes);
  expect_rejected("tree-search --trace " + f + " --max-nodes 8", {f});
}

TEST_CASE("catalogue 36: window --alpha 0, 1 and 1.5") {
  for (const char* alpha : {"0", "1", "1.5"})
    expect_rejected(std::string("window --cost-ratio 0.1 --alpha ") + alpha, {"--alpha", alpha});
}

TEST_CASE("catalogue 37: window --alpha nan") {
  expect_rejected("window --cost-ratio 0.1 --alpha nan", {"--alpha", "nan"});
}

TEST_CASE("catalogue 38: window --gamma-max beyond its documented limit") {
  expect_rejected("window --cost-ratio 0.1 --alpha 0.8 --gamma-max 100000000", {"--gamma-max", "100000000"});
}

TEST_CASE("catalogue 39: tree-search --max-nodes beyond its documented limit") {
  const auto f = write_file("ok_trace.txt", "0 0\n0\n\n1 0\n");
  expect_rejected("tree-search --trace " + f + " --x-max 100000", {"--x-max", "100000"});
  // The old name, named as typed; given with --x-max it is an error naming both, never a silent winner.
  expect_rejected("tree-search --trace " + f + " --max-nodes 100000", {"--max-nodes", "100000"});
  expect_rejected("tree-search --trace " + f + " --max-nodes 64 --x-max 32", {"--max-nodes", "--x-max"});
}

TEST_CASE("catalogue 40: mismatched list lengths (two drafts, one accuracy)") {
  expect_rejected("draft-select --hw h100-sxm --model llama-3.1-8b-instruct --drafts llama-68m,llama-3.2-1b --alpha 0.5",
                  {"--alpha"});
}

TEST_CASE("catalogue 41: a malformed acceptance CSV names the file and line") {
  const auto f = write_file("bad_aat.csv",
                            "algorithm,target_model,task,context,draft_nodes,tree_shape,draft_depth,draft_topk,aat,"
                            "samples,source_table\nlongspec-tree,m,t,128,1,1 0,,,one,50,t1\n");
  expect_rejected("fit --data " + f, {f, "line 2"});
}

TEST_CASE("catalogue 42: fit --source-table naming no table lists the tables there are") {
  // (Without --source-table, fit and optimize pool the tables and say which in a column.)
  expect_rejected("fit --algorithm longspec-tree --source-table t3-44", {"'t3-44'", "t3-4, t3-4 naive"});
}

TEST_CASE("catalogue 43: a missing --trace file") {
  expect_rejected("tree-search --trace " + (scratch_dir() / "absent_trace.txt").string(), {"absent_trace.txt"});
}

TEST_CASE("catalogue 44: context beyond what a sweep can represent is a one-line error") {
  expect_rejected(kLatency + "--context 99999999999999999999", {"--context", "99999999999999999999"});
}

TEST_CASE("catalogue 45: draft-select and policies --gamma-max beyond the window limit") {
  expect_rejected("draft-select --hw v80 --model llama-3.1-8b-instruct --drafts llama-3.2-1b --alpha 0.7 --context 1024 "
                  "--gamma-max 100000",
                  {"--gamma-max", "100000"});
  expect_rejected("policies --synthetic 200:0.7 --cost-ratio 0.1 --gamma-max 100000", {"--gamma-max", "100000"});
}

TEST_CASE("catalogue 46: a config name or output path too long for the file system") {
  // Found by fuzz_system_yaml: the config lookup let std::filesystem's "File name too long"
  // escape as an internal error. Now an unknown config (name shortened), or the path refused.
  const std::string long_name(5000, 'k');
  expect_rejected("latency --hw " + long_name + " --model llama-3.1-8b-instruct", {"unknown hardware", "kkkk..."});
  expect_rejected("reproduce table1 --no-plots --quiet --out " + (scratch_dir() / long_name).string() + "/x",
                  {"kkkk"});
}

TEST_CASE("catalogue 47: a draft head's weights and KV caches count in the memory check") {
  // Llama-3.1-8B at batch 30 x 16k fits an H100 alone (75 GiB); paper 004's 3-layer EAGLE draft
  // adds 1.6 GiB of weights and three KV caches (5.6 GiB): infeasible, not timed.
  const std::string args = "latency --hw h100-sxm --model llama-3.1-8b-instruct --context 16384 --batch 30 --x 1";
  CHECK(run_split(args).status == 0);
  expect_rejected(args + " --draft eagle-dense3-chain", {"infeasible", "draft head eagle-dense3-chain", "80.00 GiB"});
}

TEST_CASE("catalogue 48: a model larger than an FPGA board's memory is infeasible on every command") {
  // 20000 layers of Llama-3.1-8B: 8 TiB of weights against the V80's 63.3 GiB of HBM and DDR4.
  const std::string model = edited_config(kModel, "huge-model.yaml", "layers: 32", "layers: 20000");
  for (const std::string& args :
       {"latency --hw v80 --context 1024 --model " + model, "latency --hw u280 --engine sim --context 1024 --model " + model,
        "optimize --hw v80 --algorithm longspec-tree --context 1024 --model " + model,
        "window --hw v80 --draft llama-3.2-1b --alpha 0.8 --context 1024 --model " + model})
    expect_rejected(args, {"infeasible", "GiB"});
  // The shipped boards hold paper 000's Llama-3.1-8B.
  for (const char* hw : {"v80", "u280", "u250", "vhk158"})
    CHECK(run_split(std::string("latency --context 1024 --model llama-3.1-8b-instruct --hw ") + hw).status == 0);
}

TEST_CASE("catalogue 49: a memory of 1e-300 GB/s is an error on every kind and engine, never a fast time") {
  for (const std::string board : {"h100-sxm", "v80", "xeon-16c"}) {
    const std::string hw = edited_config("hardware/" + board + ".yaml", "slow-" + board + ".yaml",
                                         board == "v80" ? "bandwidth_gbs: 879.6" : "bandwidth_gbs: ",
                                         board == "v80" ? "bandwidth_gbs: 1e-300" : "bandwidth_gbs: 1e-300 #");
    for (const std::string engine : {"roofline", "sim"}) {
      INFO(board << " " << engine);
      const Outcome r =
          run_split("latency --format csv --hw " + hw + " --model llama-3.2-1b --context 1024 --engine " + engine);
      // An error, or a time at least as slow as the weights over that bandwidth (the roofline's
      // arithmetic in doubles): never the board's usual time.
      if (r.status == 0) {
        const auto header_end = r.out.find('\n');
        REQUIRE(header_end != std::string::npos);
        const std::string header = r.out.substr(0, header_end), row = r.out.substr(header_end + 1);
        std::size_t col = 0;
        for (std::size_t i = 0; i < header.find("t_verify_s"); ++i) col += header[i] == ',';
        std::size_t start = 0;
        for (std::size_t c = 0; c < col; ++c) start = row.find(',', start) + 1;
        CHECK(std::stod(row.substr(start)) > 1e200);
      } else {
        CHECK(r.status == 2);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
      }
    }
  }
}

TEST_CASE("catalogue 50: flags of another mode or past their range are refused, not ignored") {
  expect_rejected("window --hw h100-sxm --model llama-3.1-8b-instruct --draft llama-3.2-1b --context 1024 --alpha 0.8 "
                  "--t-verify-s 0.5",
                  {"--t-verify-s", "constant mode"});
  expect_rejected("draft-select --hw h100-sxm --model llama-3.1-8b-instruct --drafts llama-3.2-1b --context 1024 "
                  "--alpha 0.8 --answer-tokens 4294967297",
                  {"--answer-tokens"});
}

TEST_CASE("catalogue 51: a folder or a FIFO named as an input file is refused in one line, never read or waited on") {
  const fs::path dir = scratch_dir() / "a_folder.yaml";
  fs::create_directories(dir);
  expect_rejected("latency --hw h100-sxm --model " + dir.string() + " --x 1 --context 128", {dir.string(), "is a folder"});
  expect_rejected("sweep --spec " + dir.string(), {dir.string(), "is a folder"});
  expect_rejected("duo --model llama-2-7b --trace " + dir.string(), {dir.string(), "is a folder"});
  const fs::path fifo = scratch_dir() / ("a_fifo_" + std::to_string(getpid()));
  fs::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  // With no writer, opening the FIFO would block until the hang limit.
  expect_rejected("sweep --spec " + fifo.string(), {fifo.string(), "FIFO"});
  expect_rejected("duo --model llama-2-7b --trace " + fifo.string(), {fifo.string(), "FIFO"});
  // A device would be read without end.
  expect_rejected("optimize --hw h100-sxm --model llama-3.1-8b-instruct --algorithm eagle3-chain --context 1024 "
                  "--data /dev/zero",
                  {"/dev/zero", "character device"});
  fs::remove(fifo);
}

TEST_CASE("catalogue 52: a scenario setting given twice is a conflict naming both, not a silent winner") {
  expect_rejected("scenario chain-sd --model llama-3.1-70b --context 1024 --param system=hgx-a100-4gpu-nvlink "
                  "--param alpha=0.7 --param draft=llama-3.2-1b --param draft=llama-3.1-8b-instruct",
                  {"draft=llama-3.2-1b", "draft=llama-3.1-8b-instruct", "twice"});
  expect_rejected("scenario duodecoding --model llama-2-7b --engine sim --param engine=roofline",
                  {"--engine sim", "engine=roofline"});
  expect_rejected("duo --model llama-2-7b --alpha 0.6 --acceptance duodecoding-paper003", {"acceptance source"});
}

TEST_CASE("catalogue 53: chain SD refuses a draft that cannot draft for its target") {
  const std::string base = "chain-sd --system hgx-a100-4gpu-nvlink --model llama-3.1-70b --alpha 0.7 --context 1024 ";
  expect_rejected(base + "--draft llama-2-7b", {"llama-2-7b", "vocabulary"});
  expect_rejected(base + "--draft llama-3.1-70b", {"llama-3.1-70b", "target itself"});
}

TEST_CASE("catalogue 54: an output that names the run's own input is refused, and written names read back") {
  const std::string cfg = write_file("own_config.json", read_all(fs::path(SPECDSE_SOURCE_DIR) / "tests/experiments/hf_configs/llama-3.1-8b-instruct.json"));
  const std::string before = read_all(cfg);
  expect_rejected("import-model " + cfg + " --out " + cfg, {cfg, "own input"});
  CHECK(read_all(cfg) == before);
  const std::string stats = write_file("own_stats.yaml", "name: t\nstatistics:\n  - {kind: mean_acceptance, value: 0.6}\n");
  expect_rejected("fit --statistics " + stats + " --out " + stats, {stats, "own input"});
  // A name with YAML's specials is written quoted: the imported config loads back as a model.
  const std::string out = (scratch_dir() / "odd_name.yaml").string();
  const Outcome r = run_split("import-model " + cfg + " --name 'odd: name # x' --out " + out);
  CHECK(r.status == 0);
  const Outcome again = run_split("latency --hw h100-sxm --model " + out + " --x 1 --context 128 --format csv");
  CHECK(again.status == 0);
  CHECK_THAT(again.out, Catch::Contains("odd: name # x"));
}

TEST_CASE("catalogue 55: a context past the bound and a T_v whose reciprocal overflows are refused, not timed") {
  const std::string trace = write_file("ranks.txt", "0 0 1\n0 1\n0\n0 0 0 2\n");
  expect_rejected("tree-search --trace " + trace + " --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree "
                  "--context 9223372036854775807 --x-max 4",
                  {"--context", "9223372036854775807"});
  expect_rejected("window --alpha 0.7 --cost-ratio 0.1 --t-verify-s 1e-310", {"--t-verify-s", "1e-310"});
  expect_rejected("window --alpha 0.7 --cost-ratio 1e308", {"--cost-ratio"});
  expect_rejected("draft-select --hw v80 --model llama-3.1-8b-instruct --drafts llama-3.2-1b --alpha 0.7 --context -5",
                  {"--context"});
}

TEST_CASE("catalogue 56: an empty level-accuracy file is an error, not paper 002's stated accuracy silently dropped") {
  const std::string empty = write_file("empty_level_accuracy.csv", "");
  expect_rejected("specpipe --model llama-3.1-70b --tokens 20 --level-accuracy " + empty, {empty, "none"});
  const std::string header = write_file("header_level_accuracy.csv", "curve,width,candidates,stages,accuracy\n");
  expect_rejected("specpipe --model llama-3.1-70b --tokens 20 --level-accuracy " + header, {header, "no rows"});
}

TEST_CASE("catalogue 57: an output over the run's own input, two outputs on one file, a folder path: refused first") {
  const std::string workload = write_file("own_workload.yaml", "batch: 4\n");
  const std::string before = read_all(workload);
  expect_rejected("plan --hw h100-sxm --model llama-3.1-8b-instruct --workload " + workload + " --trace-out " + workload,
                  {workload, "own input", "--workload"});
  CHECK(read_all(workload) == before);
  const std::string spec = write_file("own_spec.yaml", read_all(fs::path(SPECDSE_SOURCE_DIR) / "configs/sweeps/compute_bandwidth_ratio.yaml"));
  expect_rejected("sweep --quiet --spec " + spec + " --out " + spec, {spec, "own input", "--spec"});
  const std::string same = (scratch_dir() / "same_output.html").string();
  expect_rejected("plan --hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --trace-out " + same + " --report " + same,
                  {"--report", "--trace-out", "same file"});
  CHECK_FALSE(fs::exists(same));
  const std::string folder = (scratch_dir() / "new_folder_output").string() + "/";
  expect_rejected("trace-gen --acceptance-vector 0.6 --lines 10 -o " + folder, {folder, "folder"});
  CHECK_FALSE(fs::exists(folder));
  // `system --trace` checks its target before the work, so nothing is printed before the error.
  const Outcome printed = run_split("system --system eagle-8xh100-nvlink --model llama-3.1-70b --context 1024 --trace " +
                                    scratch_dir().string());
  CHECK(printed.status == 2);
  CHECK(printed.out.empty());
}

TEST_CASE("catalogue 58: a special file where a sweep keeps its journal or lock is refused, not read or deleted") {
  const std::string spec = write_file("journal_spec.yaml",
                                      "name: j\nx_max: 8\naxes:\n  hardware: v80\n  model: llama-3.1-8b-instruct\n"
                                      "  algorithm: longspec-tree\n  task: govreport\n  source_table: t3-4\n"
                                      "  context: [1024]\n  memory.bandwidth_gbs: [100, 1000]\n");
  const fs::path dir = scratch_dir() / ("journal_fifo_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  REQUIRE(::mkfifo((dir / "j.csv.partial").c_str(), 0644) == 0);
  expect_rejected("sweep --quiet --spec " + spec + " --out " + (dir / "j.csv").string(), {"journal", "FIFO"});
  REQUIRE(::mkfifo((dir / ".l.csv.lock").c_str(), 0644) == 0);
  expect_rejected("sweep --quiet --spec " + spec + " --out " + (dir / "l.csv").string(), {"lock", "FIFO"});
  CHECK(fs::is_fifo(dir / ".l.csv.lock"));
  fs::remove_all(dir);
}

TEST_CASE("catalogue 59: a sweep resumed under an edited board of its system is refused, not kept") {
  const fs::path cfg = copied_configs("resume_system_cfg_");
  // A system whose draft device is a board the sweep's axes never name themselves.
  std::ofstream(cfg / "systems" / "probe-h100-l40.yaml")
      << "name: probe-h100-l40\ndevices:\n  - {name: gpu, hardware: h100-sxm}\n  - {name: dg, hardware: l40}\n"
         "links:\n  - {link: pcie5-x16, topology: switch, devices: [gpu, dg]}\n"
         "placement:\n  target: {stages: even, devices: [gpu]}\n  draft: {device: dg}\n";
  const std::string spec = write_file("resume_system_spec.yaml",
                                      "name: s\nx_max: 8\naxes:\n  hardware: h100-sxm\n  model: llama-3.1-8b-instruct\n"
                                      "  algorithm: eagle3-chain\n  task: govreport\n  context: [1024]\n"
                                      "  system: probe-h100-l40\n");
  const std::string out = (scratch_dir() / ("resume_system_" + std::to_string(getpid()) + ".csv")).string();
  fs::remove(out);
  const Outcome first = run_split("--config-dir " + cfg.string() + " sweep --quiet --spec " + spec + " --out " + out);
  INFO(first.err);
  REQUIRE(first.status == 0);
  // The draft's board, edited: the old rows no longer describe it.
  const fs::path board = cfg / "hardware" / "l40.yaml";
  const std::string text = read_all(board) + "\n# edited\n";
  std::ofstream(board) << text;
  expect_rejected("--config-dir " + cfg.string() + " sweep --quiet --spec " + spec + " --out " + out,
                  {"hardware/l40.yaml"});
  fs::remove_all(cfg);
  fs::remove(out);
}

TEST_CASE("catalogue 60: the online policy's history at the integer bound runs, not crashes") {
  const Outcome r = run_split("policies --synthetic 300:0.9 --cost-ratio 0.1 --history 2147483647");
  INFO(r.err);
  CHECK(r.status == 0);
}

TEST_CASE("catalogue 61: a draft of another vocabulary or the target drafting itself is refused by every command") {
  for (const std::string cmd :
       {"window --hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --alpha 0.7 --draft ",
        "draft-select --hw h100-sxm --model llama-3.1-8b-instruct --alpha 0.7 --drafts ",
        "optimize --hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --alpha 0.7 --algorithm ",
        "policies --hw h100-sxm --model llama-3.1-8b-instruct --synthetic 50:0.8 --context 1024 --draft "}) {
    expect_rejected(cmd + "llama-68m", {"vocabulary"});
    expect_rejected(cmd + "llama-3.1-8b-instruct", {"target itself"});
  }
}

TEST_CASE("catalogue 62: a chain TPC curve outside its domain and an empty workload context list are refused") {
  const std::string eagle = "eagle --hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --batch 1 --chain-tpc ";
  expect_rejected(eagle + "3:3.5,5:2.0", {"--chain-tpc", "5:2", "never yields fewer"});
  expect_rejected(eagle + "1:5", {"--chain-tpc", "1:5"});
  const std::string workload = write_file("empty_context_workload.yaml", "context: []\n");
  expect_rejected("plan --hw h100-sxm --model llama-3.1-8b-instruct --workload " + workload, {workload, "context", "empty"});
  // An ambiguous system: a numbered group named like another group's device.
  const std::string sys = write_file("ambiguous_groups.yaml",
                                     "name: amb\ndevices:\n  - {name: a, hardware: h100-sxm, count: 2}\n"
                                     "  - {name: a0, hardware: h100-sxm, count: 2}\nlinks:\n"
                                     "  - {link: nvlink4, topology: switch, devices: [a, a0]}\n"
                                     "placement:\n  target: {stages: even, devices: [a0]}\n");
  expect_rejected("system --system " + sys + " --model llama-3.1-8b-instruct --context 1024", {sys, "a0", "group"});
  // An unreadable input is named, not an internal error.
  expect_rejected("fit --statistics /proc/self/mem", {"/proc/self/mem", "cannot read"});
  expect_rejected("--config-dir /dev/null list hardware", {"--config-dir", "/dev/null", "not a folder"});
}

TEST_CASE("catalogue 63: help and version on a failed stdout exit 2, and a failed fit prints no solver log before its error") {
  for (const std::string args : {"--version", "--help", "plan --help"}) {
    INFO(args);
    const Outcome r = run_split(args + " > /dev/full");
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("writing to standard output failed"));
  }
  const std::string stats = write_file("heavy_weight.yaml",
                                       "name: heavy\nstart: {alpha_easy: 0.9, alpha_hard: 0.4, easy_share: 0.6, persistence: 0.7}\n"
                                       "free: [alpha_easy, alpha_hard, easy_share]\ntolerance: 0.08\nstatistics:\n"
                                       "  - {kind: chain_tpc, length: 1, value: 1.79, weight: 1e300}\n"
                                       "  - {kind: chain_tpc, length: 2, value: 2.37}\n"
                                       "  - {kind: chain_tpc, length: 3, value: 2.79}\n");
  expect_rejected("fit --statistics " + stats, {stats, "no fit reproduces"});
}

TEST_CASE("catalogue 64: a link listing a device twice, a baseline named twice, a preset's yield statistics out of range") {
  const std::string twice = write_file("link_twice.yaml",
                                       "name: twice\ndevices:\n  - {name: gpu, hardware: h100-sxm, count: 2}\nlinks:\n"
                                       "  - {link: nvlink4, topology: chain, devices: [gpu0, gpu0]}\n"
                                       "  - {link: nvlink4, topology: switch, devices: [gpu0, gpu1]}\n"
                                       "placement:\n  target: {stages: even, devices: [gpu0]}\n");
  expect_rejected("system --system " + twice + " --model llama-3.1-8b-instruct --context 1024", {twice, "gpu0", "twice"});
  const std::string baseline = edited_config("systems/specpipe-2srv-3090-4090-eth.yaml", "baseline_twice.yaml",
                                             "  tp-pp-vllm: vllm-cuda-graph", "  pp-vllm: vllm-cuda-graph");
  expect_rejected("system --system " + baseline + " --model llama-3.1-70b --context 1024", {baseline, "pp-vllm"});
  const std::string low = edited_config("serving/sharegpt-llama3.1-8b.yaml", "low_yield.yaml", "mean_yield: 3.332154",
                                        "mean_yield: 0.5");
  expect_rejected("serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 1 --duration-s 5 --workload " + low,
                  {low, "mean_yield"});
  const std::string lag = edited_config("serving/sharegpt-llama3.1-8b.yaml", "lag_two.yaml",
                                        "walk_lag1_correlation: 0.269908", "walk_lag1_correlation: 2");
  expect_rejected("serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 1 --duration-s 5 --workload " + lag,
                  {lag, "walk_lag1_correlation"});
}

TEST_CASE("catalogue 65: a sweep with a bad point opens and prints nothing, and a report on stderr never precedes a stdout error") {
  // The third point's source table has no measurements: refused before the journal is opened or
  // the CSV header is printed.
  const std::string spec = write_file("bad_point_sweep.yaml",
                                      "name: bad_point\nengine: roofline\nx_max: 16\naxes:\n  hardware: v80\n"
                                      "  model: llama-3.1-8b-instruct\n  algorithm: longspec-tree\n  task: govreport\n"
                                      "  source_table: no-such-table\n  context: [1024]\n");
  const fs::path out = scratch_dir() / ("bad_point_sweep_" + std::to_string(getpid()) + ".csv");
  fs::remove(out);
  fs::remove(out.string() + ".partial");
  expect_rejected("sweep --quiet --spec " + spec + " --out " + out.string(), {spec, "no-such-table"});
  CHECK_FALSE(fs::exists(out));
  CHECK_FALSE(fs::exists(out.string() + ".partial"));
  const Outcome streamed = run_split("sweep --quiet --spec " + spec);
  CHECK(streamed.status == 2);
  CHECK(streamed.out.empty());
  // golden's summary goes to stderr after a CSV: not when the CSV did not arrive.
  const Outcome golden = run_split("golden --hw h100-sxm --measured " + std::string(SPECDSE_SOURCE_DIR) +
                                   "/notebooks_out/golden/h100_sxm_cublas_llama-3.1-8b_2026-11-22.csv --format csv "
                                   "> /dev/full");
  INFO(golden.err);
  CHECK(golden.status == 2);
  CHECK(std::count(golden.err.begin(), golden.err.end(), '\n') == 1);
  CHECK_THAT(golden.err, Catch::Contains("writing to standard output failed") && !Catch::Contains("summary"));
}

TEST_CASE("catalogue 66: a config file that took a shipped config's name goes by its own, and a baseline may not take a pipeline method's name") {
  const fs::path cfg = copied_configs("impostor_cfg_");
  // A system, a model and a board whose `name:` is a shipped one's: their rows carry their files' names.
  std::ofstream(cfg / "systems" / "impostor.yaml")
      << "name: eagle-8xh100-nvlink\ndevices:\n  - {name: gpu, hardware: rtx3090, count: 2}\n"
         "links:\n  - {link: pcie4-x16, topology: switch, devices: [gpu]}\n"
         "placement:\n  target: {stages: even, devices: [gpu]}\n";
  std::ofstream(cfg / "models" / "fake-model.yaml") << read_all(cfg / "models" / "llama-3.2-1b.yaml");
  std::ofstream(cfg / "hardware" / "fake.yaml") << read_all(cfg / "hardware" / "h100-sxm.yaml");
  const std::string dir = "--config-dir " + cfg.string() + " ";
  const Outcome sys = run_split(dir + "system --system impostor --model llama-3.1-8b-instruct --context 1024 --format csv");
  INFO(sys.err);
  REQUIRE(sys.status == 0);
  CHECK_THAT(sys.out, Catch::Contains("impostor") && !Catch::Contains("eagle-8xh100-nvlink"));
  const Outcome lat = run_split(dir + "latency --hw fake --model fake-model --x 1 --format csv");
  INFO(lat.err);
  REQUIRE(lat.status == 0);
  CHECK_THAT(lat.out, Catch::Contains("fake") && !Catch::Contains("h100-sxm") && !Catch::Contains("llama-3.2-1b"));
  fs::remove_all(cfg);
  // A baseline named like the pipeline's own plain pipeline.
  const std::string pp = edited_config("systems/specpipe-8x3090-pcie.yaml", "baseline_pp.yaml", "  pp-vllm:", "  pp:");
  expect_rejected("specpipe --system " + pp + " --model llama-3.1-70b --draft llama-3.2-1b --tokens 20",
                  {pp, "baseline_stacks", "'pp'"});
  // Every row specpipe prints is one of its own methods or one of the system's baselines.
  const Outcome rows = run_split("specpipe --system specpipe-2srv-3090-4090-eth --model llama-3.1-70b --draft llama-3.2-1b "
                                 "--tokens 20 --batch 1,2 --format csv");
  INFO(rows.err);
  REQUIRE(rows.status == 0);
  std::istringstream in(rows.out);
  std::string line;
  int methods = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("method,", 0) == 0) continue;
    const std::string method = line.substr(0, line.find(','));
    INFO(method);
    const bool own = std::any_of(std::begin(models::kPipelineOwnMethods), std::end(models::kPipelineOwnMethods),
                                 [&](const char* m) { return method == m; });
    CHECK((own || method == "pp-vllm" || method == "tp-pp-vllm"));
    ++methods;
  }
  CHECK(methods >= 6);
  // A config folder that holds no config category.
  const fs::path empty = scratch_dir() / ("empty_cfg_" + std::to_string(getpid()));
  fs::create_directories(empty);
  expect_rejected("--config-dir " + empty.string() + " list hardware", {empty.string(), "holds none of"});
  fs::remove_all(empty);
}

TEST_CASE("catalogue 67: specdse scenario NAME refuses a common flag its scenario does not read") {
  expect_rejected("scenario specpipe --hw h100-sxm --model llama-3.1-70b", {"scenario specpipe", "--hw", "ignored"});
  expect_rejected("scenario serve --hw h100-sxm --model llama-3.1-8b-instruct --context 16384", {"serve", "--context"});
  expect_rejected("scenario chain-sd --hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --task qmsum "
                  "--param draft=llama-3.2-1b", {"chain-sd", "--task"});
  expect_rejected("scenario duodecoding --model llama-2-7b --context 1024", {"duodecoding", "--context"});
  // What it reads, or declares as its own parameter (DuoDecoding's engine), is taken.
  const Outcome duo = run_split("scenario duodecoding --model llama-2-7b --engine roofline --param tokens=64 --format csv");
  INFO(duo.err);
  CHECK(duo.status == 0);
}

TEST_CASE("catalogue 68: a flag that its mode would ignore is refused, naming what it needs or excludes") {
  const std::string trace = write_file("small_trace.txt", "0 0\n0\n1\n0 0 0\n");
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"window --alpha 0.7 --cost-ratio 0.1 --engine sim", {"--engine", "--cost-ratio"}},
      {"policies --synthetic 100:0.7 --cost-ratio 0.1 --context 4096", {"--context", "--cost-ratio"}},
      {"policies --synthetic 100:0.7 --cost-ratio 0.1 --policies static --q-learning-rate 0.9",
       {"--q-learning-rate", "static"}},
      {"tree-search --trace " + trace + " --engine sim", {"--engine", "--hw"}},
      {"tree-search --trace " + trace + " --emit-method width-first", {"--emit-method", "--emit-tree"}},
      {"trace-gen --acceptance-vector 0.6 --lines 3 --drift-period 10", {"--drift-period", "--drift-to"}},
      {"eagle --system eagle-8xh100-nvlink --model llama-3.1-70b --context 1024 --batch 1 --stack pytorch-eager",
       {"--stack", "--hw"}},
      {"plan --system eagle-8xh100-nvlink --model llama-3.1-70b --context 1024 --stack auto", {"--stack", "--hw"}},
      {"serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 1 --duration-s 5 --method none --dispatch per-batch",
       {"--dispatch", "--method none"}},
      {"serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 1 --duration-s 5 --method none --sd-off-above 4",
       {"--sd-off-above"}},
      {"serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 1 --duration-s 5 --trace-window-s 3",
       {"--trace-window-s", "--trace-out"}},
      {"specpipe --system specpipe-8x3090-pcie --model llama-3.1-70b --tokens 50 --w 16 --k 4 --no-boundary "
       "--hit-rate 0.9 --hit-curve llama-3.2-1b", {"--hit-rate", "--hit-curve"}},
      {"specpipe --system specpipe-8x3090-pcie --model llama-3.1-70b --tokens 50 --w 16 --k 4 --no-boundary "
       "--hit-rate 0.9 --confidence constant", {"--hit-rate", "--confidence"}},
      {"duo --model llama-2-7b --sweep-range 8 --show summary", {"--sweep-range", "--show summary"}},
      {"fit --statistics " + std::string(SPECDSE_CONFIG_DIR) + "/acceptance/statistics/paper003-table4.yaml --no-ad-anchor",
       {"--no-ad-anchor", "--statistics"}},
      {"duo --model llama-2-7b --max-sequences 8 --sequences static:2", {"--max-sequences", "static:2"}},
      {"optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-chain --context 1024 --source-table t3-2 "
       "--alpha 0.7", {"--source-table", "--alpha"}},
  };
  for (const auto& [args, needles] : cases) expect_rejected(args, needles);
}

TEST_CASE("catalogue 69: an unknown task, --jobs for one reproduction and a stack for an FPGA are refused, not ignored") {
  expect_rejected("plan --hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --task govrepot",
                  {"task", "govrepot", "govreport"});
  const std::string empty_task = write_file("empty_task_workload.yaml", "task: ''\n");
  expect_rejected("plan --hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --workload " + empty_task, {"task"});
  expect_rejected("reproduce table1 --jobs 3 --no-plots --quiet --out " + (scratch_dir() / "jobs_one").string(),
                  {"--jobs", "table1"});
  expect_rejected("latency --hw v80 --model llama-3.2-1b --context 1024 --x 1,2 --stack vllm-cuda-graph",
                  {"--stack", "v80", "fpga"});
  expect_rejected("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024 "
                  "--stack vllm-cuda-graph", {"stack", "v80"});
}

TEST_CASE("catalogue 70: a fit tolerance that accepts every fit and a band listing one process twice are refused") {
  const std::string loose = write_file("loose_tolerance.yaml",
                                       "name: loose\nstart: {alpha_easy: 0.9, alpha_hard: 0.4, easy_share: 0.6, persistence: 0.7}\n"
                                       "free: [alpha_easy, alpha_hard, easy_share]\ntolerance: 1e300\nstatistics:\n"
                                       "  - {kind: chain_tpc, length: 1, value: 1.79}\n"
                                       "  - {kind: chain_tpc, length: 2, value: 2.37}\n");
  expect_rejected("fit --statistics " + loose, {loose, "tolerance", "1e+300"});
  std::string band = read_all(fs::path(SPECDSE_CONFIG_DIR) / "acceptance/processes/specpipe-paper002.yaml");
  const auto first = band.find("  - {alpha_easy");
  REQUIRE(first != std::string::npos);
  const auto end = band.find('\n', first);
  band.insert(end + 1, band.substr(first, end + 1 - first));  // the first member again
  const std::string twice = write_file("member_twice.yaml", band);
  expect_rejected("window --cost-ratio 0.1 --acceptance " + twice, {twice, "members[1]", "members[0]"});
}

TEST_CASE("catalogue 71: a sweep's bad hardware override names the board and the override, never a temporary file, and needs no writable TMPDIR") {
  const std::string spec = write_file("bad_override_sweep.yaml",
                                      "name: bad_override\nengine: roofline\nx_max: 8\naxes:\n  hardware: h100-sxm\n"
                                      "  model: llama-3.1-8b-instruct\n  algorithm: eagle3-chain\n  task: govreport\n"
                                      "  context: [1024]\n  sms: [0.5]\n");
  expect_rejected("sweep --quiet --spec " + spec, {spec, "h100-sxm.yaml with sms=0.5", "sms: expected an integer"});
  const Outcome r = run_split("sweep --quiet --spec " + spec);
  CHECK_THAT(r.err, !Catch::Contains("specdse-sweep-") && !Catch::Contains("/tmp/specdse"));
  // A good override with TMPDIR unwritable: the board is edited in memory.
  const std::string good = write_file("good_override_sweep.yaml",
                                      "name: good_override\nengine: roofline\nx_max: 8\naxes:\n  hardware: h100-sxm\n"
                                      "  model: llama-3.1-8b-instruct\n  algorithm: eagle3-chain\n  task: govreport\n"
                                      "  context: [1024]\n  sms: [66]\n");
  // (run_split runs the executable first: --version, then the sweep under the unwritable TMPDIR.)
  const Outcome tmp = run_split("--version >/dev/null; TMPDIR=/proc/none " + specdse_exe() + " sweep --quiet --spec " + good);
  INFO(tmp.err);
  CHECK(tmp.status == 0);
  CHECK_THAT(tmp.out, Catch::Contains("h100-sxm"));
}

TEST_CASE("catalogue 72: options a mode would ignore, a negative seed, an unusable TMPDIR and an out-of-scale first sweep point are refused before anything is printed") {
  // duo's SpS baseline options under a view with no SpS row.
  const std::string duo = "duo --system duodecoding-a800-xeon --model llama-2-7b --draft llama-68m --tokens 50 ";
  expect_rejected(duo + "--show sequences --sps-gamma 4", {"--sps-gamma", "sequences"});
  expect_rejected(duo + "--show sweep --sps-draft llama-68m", {"--sps-draft", "sweep"});
  // golden --measured compares a CSV; the options of a kernel run here would be ignored.
  const std::string kernels =
      (fs::path(SPECDSE_SOURCE_DIR) / "notebooks_out/golden/h100_sxm_cublas_llama-3.1-8b_2026-11-22.csv").string();
  expect_rejected("golden --hw h100-sxm --measured " + kernels + " --rounds 9", {"--rounds", "--measured"});
  expect_rejected("golden --hw h100-sxm --measured " + kernels + " --models llama-3.1-70b", {"--models", "--measured"});
  // A negative seed wrapped round to 2^64 - 1.
  expect_rejected("policies --synthetic 200:0.9 --cost-ratio 0.1 --seed -1", {"--seed", "-1"});
  expect_rejected("trace-gen --acceptance-vector 0.6 --lines 2 --seed -1", {"--seed", "-1"});
  // A TMPDIR that is not a writable folder: named, before the fit's table is printed.
  const std::string fit = "fit --statistics " + std::string(SPECDSE_CONFIG_DIR) +
                          "/acceptance/statistics/paper000-longspec-govreport-1024.yaml --scenario tree-sd --hw v80 "
                          "--model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024 --param x-max=8";
  const Outcome tmp = run_split("--version >/dev/null; TMPDIR=/proc/none " + specdse_exe() + " " + fit);
  INFO(tmp.err);
  CHECK(tmp.status == 2);
  CHECK(tmp.out.empty());
  CHECK_THAT(tmp.err, Catch::Contains("TMPDIR=/proc/none") && !Catch::Contains("filesystem error"));
  // A sweep whose only point is out of scale for the engine prints no head before its error.
  const std::string spec = write_file("scale_sweep.yaml",
                                      "name: scale\nengine: roofline\nx_max: 8\naxes:\n  hardware: h100-sxm\n"
                                      "  model: llama-3.1-8b-instruct\n  algorithm: eagle3-chain\n  task: govreport\n"
                                      "  context: [1024]\n  calibration.memory_efficiency: [1e-300]\n");
  const Outcome scale = run_split("sweep --quiet --spec " + spec);
  INFO(scale.err);
  CHECK(scale.status == 2);
  CHECK(scale.out.empty());
  // optimize --x-search optimum on an engine that must evaluate every x says so under the table.
  const Outcome opt = run_split("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree "
                                "--context 1024 --x-max 8 --x-search optimum --format csv");
  CHECK(opt.status == 0);
  CHECK_THAT(opt.out, Catch::Contains("x-search optimum: every x evaluated"));
}

TEST_CASE("catalogue 73: a grid past its run's work bound is refused up front, naming its factors") {
  expect_rejected("latency --hw h100-sxm --model llama-3.2-1b --x 1-65536 --context 1-100",
                  {"latency", "--x (65536) x --context (100)", "6553600 rows", "1000000", "sweep"});
  expect_rejected("eagle --hw h100-sxm --model llama-3.1-8b-instruct --context 1-100000 --batch 1",
                  {"--context (100000)", "4096"});
  expect_rejected("chain-sd --system duodecoding-a800-xeon --model llama-2-7b --draft llama-68m --context 1-100000 "
                  "--gamma 1-64 --alpha 0.7", {"--gamma (64)", "100000"});
  expect_rejected("optimize --hw h100-sxm --model llama-3.1-8b-instruct --algorithm eagle3-chain --alpha 0.7 "
                  "--context 1-1000000 --x-max 8", {"--x-max (8)", "250000"});
  expect_rejected("window --hw h100-sxm --model llama-3.1-8b-instruct --draft llama-3.2-1b --alpha 0.8 "
                  "--context 1-1000000", {"window", "--context (1000000)"});
  std::string rates;
  for (int r = 1; r <= 2000; ++r) rates += (r > 1 ? "," : "") + std::to_string(r);
  expect_rejected("serve --hw h100-sxm --model llama-3.1-8b-instruct --duration-s 10 --rate " + rates,
                  {"serve", "2000 rates", "requests"});
  // A SpecPipe pipeline past 64 stages: refused by the scenario, listed as not applicable by plan.
  const fs::path cfg = copied_configs("stages_cfg");
  std::ofstream(cfg / "systems/probe-stages.yaml", std::ios::binary)
      << ("name: probe-stages\ndevices:\n  - {name: gpu, hardware: h100-sxm, count: 65}\nlinks:\n"
             "  - {link: nvlink4, topology: switch, devices: [gpu]}\nplacement:\n"
             "  target: {stages: even, devices: [gpu], tensor_parallel: 1}\n  draft: {device: gpu0}\n")
      << std::flush;
  expect_rejected("--config-dir " + cfg.string() + " specpipe --system probe-stages --model llama-3.1-70b --draft "
                  "llama-3.2-1b --tokens 10 --w 4 --k 2 --no-boundary", {"65 pipeline stages", "64"});
  const Outcome plan = run_split("--config-dir " + cfg.string() + " plan --system probe-stages --model llama-3.1-70b "
                                 "--context 1024 --format csv");
  INFO(plan.err);
  CHECK(plan.status == 0);
  CHECK_THAT(plan.out, Catch::Contains("not applicable: placement.target: 65 pipeline stages"));
}

TEST_CASE("catalogue 74: trace lines, window rows, golden FLOPs and a statistic's size past their bounds are refused before any work") {
  expect_rejected("trace-gen --acceptance-vector 0.6 --lines 1000000000 -o " + (scratch_dir() / "big_trace.txt").string(),
                  {"trace-gen", "--lines", "100000000", "--seed"});
  CHECK_FALSE(fs::exists(scratch_dir() / "big_trace.txt"));
  std::string alphas;
  for (int i = 0; i < 2000; ++i) alphas += fmt::format("{}{:.4f}", i ? "," : "", 0.01 + i * 0.0004);
  expect_rejected("window --cost-ratio 0.1,0.2,0.3 --gamma-max 1024 --alpha " + alphas,
                  {"window", "--cost-ratio (3) x acceptances (2000) x windows 0..--gamma-max (1025)"});
  // Refused before this host is calibrated (the error is the only line: no calibration notice).
  expect_rejected("golden --hw host --models llama-68m --tree-tokens 2000000000 --rounds 1 --repeats 1",
                  {"golden", "FLOP", "--tree-tokens"});
  const std::string long_chain = write_file("long_chain_statistics.yaml",
                                            "name: long\nstart: {alpha_easy: 0.9, alpha_hard: 0.4, easy_share: 0.6}\n"
                                            "free: [alpha_easy, alpha_hard, easy_share]\nstatistics:\n"
                                            "  - {kind: chain_tpc, length: 4096, value: 3}\n");
  expect_rejected("fit --statistics " + long_chain, {long_chain, "length", "1024", "4096"});
  const std::string wide_tree = write_file("wide_tree_statistics.yaml",
                                           "name: wide\nstart: {alpha_easy: 0.9, alpha_hard: 0.4, easy_share: 0.6}\n"
                                           "free: [alpha_easy, alpha_hard, easy_share]\nstatistics:\n"
                                           "  - {kind: level_tree_tpc, widths: \"1000 1000 1000 1000\", value: 3}\n");
  expect_rejected("fit --statistics " + wide_tree, {wide_tree, "widths", "4000 nodes", "1024"});
}

TEST_CASE("catalogue 75: a second name for an option given with the first is an error naming both, never a silent winner") {
  const auto f = write_file("alias_trace.txt", "0 0\n0\n\n1 0\n");
  const std::string model = " --hw v80 --model llama-3.1-8b-instruct --context 1024";
  expect_rejected("latency" + model + " --draft llama-3.2-1b --algorithm longspec-chain", {"--draft", "--algorithm"});
  expect_rejected("window" + model + " --draft llama-3.2-1b --algorithm longspec-chain --alpha 0.8",
                  {"--draft", "--algorithm"});
  expect_rejected("tree-search --trace " + f + model + " --algorithm longspec-tree --draft longspec-chain",
                  {"--draft", "--algorithm"});
  expect_rejected("optimize" + model + " --algorithm longspec-tree --draft longspec-chain", {"--draft", "--algorithm"});
  // Each alone works, and the alias is listed in --help.
  const Outcome alone = run_split("latency" + model + " --algorithm longspec-chain --x 2 --format csv");
  INFO(alone.err);
  CHECK(alone.status == 0);
  CHECK_THAT(run_split("optimize --help").out, Catch::Contains("--draft"));
  CHECK_THAT(run_split("latency --help").out, Catch::Contains("--algorithm"));
}

TEST_CASE("catalogue 76: a fit whose filters match nothing names them and what there is") {
  expect_rejected("fit --algorithm longspec-tree --model llama-3.1-8b-instruct --context 100",
                  {"--context 100", "contexts there: 128"});
  expect_rejected("fit --algorithm longspec-tree --model llama-3.1-8b-instruct --task govrep",
                  {"--task govrep", "tasks there:", "govreport"});
}
