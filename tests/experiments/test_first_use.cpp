// Issue 15's first-use fixes: naming an acceptance source (--aat-from, --alpha, --trace) and
// saying which was used; --config-dir choosing the acceptance data; import-model from Hugging
// Face config.json files; --version; manifests as YAML without wall times or absolute paths;
// golden warning when the hardware config is not this host.
#include <catch2/catch.hpp>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_run.hpp"
#include "experiments/cli/acceptance_source.hpp"
#include "experiments/process/run_process.hpp"
#include "experiments/reproductions/manifest.hpp"
#include "models/config_error.hpp"
#include "models/hf_import.hpp"

namespace fs = std::filesystem;
using cli_test::run;

namespace {

const std::string kSource = SPECDSE_SOURCE_DIR;
const std::string kConfigs = SPECDSE_CONFIG_DIR;
std::string hf(const std::string& file) { return kSource + "/tests/experiments/hf_configs/" + file; }

fs::path temp_dir(const std::string& tag) {
  const auto d = fs::path(SPECDSE_TEST_BINARY_DIR) / ("first_use_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// The CSV's rows as maps column -> cell (no quoted commas in the columns these tests read).
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    if (line.rfind("# ", 0) == 0) continue;  // the footer's fields
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string c;
    while (std::getline(ss, c, ',')) cells.push_back(c);
    if (header.empty()) {
      header = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

void expect_same_shape(const models::ModelSpec& a, const models::ModelSpec& b) {
  CHECK(a.layers == b.layers);
  CHECK(a.hidden_size == b.hidden_size);
  CHECK(a.intermediate_size == b.intermediate_size);
  CHECK(a.attention_heads == b.attention_heads);
  CHECK(a.kv_heads == b.kv_heads);
  CHECK(a.head_dim == b.head_dim);
  CHECK(a.vocab_size == b.vocab_size);
  CHECK(a.tied_embeddings == b.tied_embeddings);
  CHECK(a.weight_bits == b.weight_bits);
  CHECK(a.mlp == b.mlp);
  CHECK(a.num_experts == b.num_experts);
  CHECK(a.experts_per_token == b.experts_per_token);
  CHECK(a.shared_experts == b.shared_experts);
  CHECK(a.moe_intermediate_size == b.moe_intermediate_size);
  CHECK(a.moe_layer_step == b.moe_layer_step);
  CHECK(a.parameters() == Approx(b.parameters()));
}

}  // namespace

TEST_CASE("geometric chain AAT: 1 at x = 1, the series sum, bounded by 1 / (1 - alpha)", "[first-use]") {
  CHECK(experiments::geometric_chain_aat(0.6, 1) == 1.0);
  CHECK(experiments::geometric_chain_aat(0.6, 2) == Approx(1.6));
  CHECK(experiments::geometric_chain_aat(0.6, 3) == Approx(1.96));
  for (int x = 1; x <= 200; ++x) {
    const double v = experiments::geometric_chain_aat(0.8, x);
    CHECK(v == Approx((1 - std::pow(0.8, x)) / 0.2));
    CHECK(v <= x);
    CHECK(v < 5.0 + 1e-9);
  }
}

TEST_CASE("optimize: --alpha, --aat-from and --trace name the AAT source in the output", "[first-use]") {
  // A model with no measurements of its own: the error says how to name a source.
  auto r = run("optimize --hw v80 --model llama-3.2-1b --algorithm longspec-tree --context 1024 --format csv");
  CHECK(r.status == 2);
  CHECK(r.output.find("--aat-from") != std::string::npos);

  r = run("optimize --hw v80 --model llama-3.2-1b --algorithm longspec-tree --context 1024 --format csv "
          "--aat-from llama-3.1-8b-instruct/longspec-tree/govreport", false);
  REQUIRE(r.status == 0);
  auto rows = csv_rows(r.output);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["aat_source"] == "measured llama-3.1-8b-instruct/longspec-tree/govreport (--aat-from)");
  CHECK(std::stod(rows[0]["speedup"]) > 1.0);
  // Borrowed for another target: said in the CSV's fields and under the text table.
  CHECK_THAT(r.output, Catch::Contains("# borrowed: measured for llama-3.1-8b-instruct/longspec-tree/govreport, not the "
                                       "workload's llama-3.2-1b/longspec-tree/govreport (another target model)"));
  CHECK_THAT(run("optimize --hw v80 --model llama-3.2-1b --algorithm longspec-tree --context 1024 --wide "
                 "--aat-from llama-3.1-8b-instruct/longspec-tree/govreport", false).output,
             Catch::Contains("caveat: acceptance borrowed: measured for llama-3.1-8b-instruct"));

  // --alpha: AAT at the best x is the geometric chain's, to the printed precision.
  r = run("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm llama-3.2-1b --context 1024 --alpha 0.7 "
          "--format csv", false);
  REQUIRE(r.status == 0);
  rows = csv_rows(r.output);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["aat_source"] == "alpha 0.7 (geometric chain)");
  const int best_x = std::stoi(rows[0]["best_x"]);
  CHECK(std::stod(rows[0]["aat_at_best"]) == Approx(experiments::geometric_chain_aat(0.7, best_x)).epsilon(1e-3));

  // A higher acceptance never makes the best speed-up smaller.
  const auto r9 = run("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm llama-3.2-1b --context 1024 "
                      "--alpha 0.9 --format csv", false);
  REQUIRE(r9.status == 0);
  CHECK(std::stod(csv_rows(r9.output)[0]["speedup"]) > std::stod(rows[0]["speedup"]));

  // --alpha describes a chain: with a tree algorithm it is refused.
  r = run("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024 --alpha 0.7");
  CHECK(r.status == 2);
  CHECK(r.output.find("chain") != std::string::npos);
  r = run("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm llama-3.2-1b --context 1024 --alpha 1.5");
  CHECK(r.status == 2);
  r = run("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024 --aat-from nope");
  CHECK(r.status == 2);
  CHECK(r.output.find("MODEL/ALGORITHM/TASK") != std::string::npos);

  // --trace: an all-accepting chain trace of depth 3 gives AAT(x) = min(x, 4).
  const auto dir = temp_dir("trace");
  const auto trace = dir / "chain.trace";
  std::ofstream(trace) << "0 0 0\n0 0 0\n0 0 0\n";
  r = run("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm llama-3.2-1b --context 1024 --format csv "
          "--trace '" + trace.string() + "'", false);
  REQUIRE(r.status == 0);
  rows = csv_rows(r.output);
  CHECK(rows[0]["aat_source"] == "trace chain.trace (3 iterations; chain)");
  CHECK(std::stod(rows[0]["aat_at_best"]) == Approx(std::min(4, std::stoi(rows[0]["best_x"]))));
}

TEST_CASE("optimize: a model given as a YAML path finds the measurements under its own name", "[first-use]") {
  const auto r = run("optimize --hw v80 --model " + kConfigs + "/models/llama-3.1-8b-instruct.yaml "
                     "--algorithm longspec-tree --context 1024 --format csv", false);
  REQUIRE(r.status == 0);
  CHECK(csv_rows(r.output)[0]["aat_source"] == "measured llama-3.1-8b-instruct/longspec-tree/govreport");
}

TEST_CASE("optimize and fit read the acceptance data of --config-dir", "[first-use]") {
  // A config folder whose acceptance CSV holds only the 1024-token rows: fit sees only those,
  // and optimize at another context reports that folder's data.
  const auto dir = temp_dir("configdir");
  fs::copy(kConfigs, dir / "configs", fs::copy_options::recursive);
  const auto csv = dir / "configs/acceptance/aat_measurements.csv";
  std::ifstream in(csv);
  std::string line, kept;
  bool header_seen = false;
  int n = 0;
  while (std::getline(in, line)) {
    const bool keep_row = line.rfind("longspec-tree,llama-3.1-8b-instruct,govreport,1024,", 0) == 0;
    if (line.rfind("#", 0) == 0 || !header_seen || keep_row) kept += line + "\n";
    if (line.rfind("#", 0) != 0) header_seen = true;
    n += keep_row;
  }
  in.close();
  REQUIRE(n >= 3);
  std::ofstream(csv, std::ios::trunc) << kept;
  const std::string cfg = "--config-dir '" + (dir / "configs").string() + "' ";
  auto r = run(cfg + "fit --format csv", false);
  REQUIRE(r.status == 0);
  auto rows = csv_rows(r.output);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["context"] == "1024");
  r = run(cfg + "optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 4096");
  CHECK(r.status == 2);
  CHECK(r.output.find((dir / "configs/acceptance").string()) != std::string::npos);
}

TEST_CASE("import-model: Llama-3.1-8B's config.json gives the shipped model's shape", "[first-use]") {
  const auto im = models::import_hf_config(hf("llama-3.1-8b-instruct.json"), "llama-3.1-8b-instruct");
  expect_same_shape(im.model, models::load_model(kConfigs + "/models/llama-3.1-8b-instruct.yaml"));
  // No _name_or_path in that file: a name must be given.
  CHECK_THROWS_AS(models::import_hf_config(hf("llama-3.1-8b-instruct.json")), models::InputError);
}

TEST_CASE("import-model: Llama 4 Scout's nested text_config and MoE keys give the shipped model", "[first-use]") {
  const auto im = models::import_hf_config(hf("llama-4-scout.json"));
  CHECK(im.model.name == "llama-4-scout-17b-16e");
  expect_same_shape(im.model, models::load_model(kConfigs + "/models/llama-4-scout.yaml"));
}

TEST_CASE("import-model: Mixtral and Qwen-MoE expert keys, the YAML loads back to the same model", "[first-use]") {
  const auto mixtral = models::import_hf_config(hf("mixtral-8x7b.json"), "mixtral-8x7b");
  CHECK(mixtral.model.num_experts == 8);
  CHECK(mixtral.model.experts_per_token == 2);
  CHECK(mixtral.model.moe_intermediate_size == 14336);
  CHECK(mixtral.model.shared_experts == 0);
  // Mixtral-8x7B has 46.7 B parameters (Mistral AI's announcement).
  CHECK(mixtral.model.parameters() / 1e9 == Approx(46.7).epsilon(0.01));
  const auto qwen = models::import_hf_config(hf("qwen1.5-moe-a2.7b.json"), "qwen1.5-moe-a2.7b");
  CHECK(qwen.model.num_experts == 60);
  CHECK(qwen.model.experts_per_token == 4);
  CHECK(qwen.model.moe_intermediate_size == 1408);
  CHECK(qwen.model.shared_experts == 4);
  // Qwen1.5-MoE-A2.7B: 14.3 B parameters in all (Qwen's model card).
  CHECK(qwen.model.parameters() / 1e9 == Approx(14.3).epsilon(0.02));

  const auto dir = temp_dir("import");
  for (const auto* im : {&mixtral, &qwen}) {
    const auto path = dir / (im->model.name + ".yaml");
    std::ofstream(path) << models::to_model_yaml(*im, "test");
    expect_same_shape(models::load_model(path.string()), im->model);
  }
}

TEST_CASE("import-model: a sliding window it does not model is said in the YAML's header, not dropped silently", "[first-use]") {
  const auto dir = temp_dir("import-window");
  const auto path = dir / "config.json";
  std::ofstream(path) << R"({"model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336,
    "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000,
    "sliding_window": 4096, "torch_dtype": "bfloat16"})";
  const auto im = models::import_hf_config(path.string(), "mistral-7b");
  REQUIRE(im.ignored.size() == 1);
  CHECK_THAT(im.ignored[0], Catch::StartsWith("sliding_window 4096 not modelled"));
  CHECK_THAT(models::to_model_yaml(im, "test"), Catch::Contains("# sliding_window 4096 not modelled"));
  // Mixtral's null window is no window.
  CHECK(models::import_hf_config(hf("mixtral-8x7b.json"), "mixtral-8x7b").ignored.empty());
}

TEST_CASE("import-model CLI: writes a YAML that latency loads by path, bad files are one-line errors", "[first-use]") {
  const auto dir = temp_dir("import_cli");
  const auto out = dir / "l8b.yaml";
  auto r = run("import-model " + hf("llama-3.1-8b-instruct.json") + " --name l8b --out '" + out.string() + "'");
  REQUIRE(r.status == 0);
  std::ifstream in(out);
  std::string first;
  std::getline(in, first);
  CHECK(first.find("llama-3.1-8b-instruct.json") != std::string::npos);
  CHECK(first.find(kSource) == std::string::npos);  // no absolute path in the header
  const auto a = run("latency --hw v80 --model '" + out.string() + "' --x 1,16 --context 1024 --format csv", false);
  const auto b = run("latency --hw v80 --model llama-3.1-8b-instruct --x 1,16 --context 1024 --format csv", false);
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  // Same shape, same times: only the model name differs.
  std::string renamed = a.output;
  for (std::size_t at; (at = renamed.find(",l8b,")) != std::string::npos;)
    renamed.replace(at, 5, ",llama-3.1-8b-instruct,");
  CHECK(renamed == b.output);

  const auto bad = dir / "bad.json";
  std::ofstream(bad) << "{\"hidden_size\": 4096, \"num_hidden_layers\": \"many\"}";
  r = run("import-model '" + bad.string() + "' --name x");
  CHECK(r.status == 2);
  CHECK(r.output.find("num_hidden_layers") != std::string::npos);
  std::ofstream(bad, std::ios::trunc) << "{ not json";
  r = run("import-model '" + bad.string() + "' --name x");
  CHECK(r.status == 2);
  r = run("import-model /nonexistent/config.json --name x");
  CHECK(r.status == 2);
}

TEST_CASE("import-model: a key given twice, experts' dense-layer lists and sizes the loader refuses are errors, no file", "[first-use]") {
  const auto dir = temp_dir("import_refused");
  const auto json = dir / "config.json";
  const auto out = dir / "m.yaml";
  const std::string shape = R"("model_type": "llama", "intermediate_size": 11008, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32000, "torch_dtype": "float16")";
  // Python's json keeps the last of a repeated key, a YAML reader the first: neither is guessed.
  std::ofstream(json, std::ios::trunc) << "{\"hidden_size\": 4096, \"hidden_size\": 2048, " << shape << "}";
  auto r = run("import-model '" + json.string() + "' --name m --out '" + out.string() + "'");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("hidden_size: key given twice"));
  CHECK_FALSE(std::filesystem::exists(out));
  // Nested maps too.
  std::ofstream(json, std::ios::trunc) << "{\"hidden_size\": 4096, \"rope_scaling\": {\"factor\": 8, \"factor\": 4}, "
                                       << shape << "}";
  r = run("import-model '" + json.string() + "' --name m --out '" + out.string() + "'");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("rope_scaling.factor: key given twice"));
  // Qwen-MoE's mlp_only_layers (dense layers among the expert ones) is not a layout specdse holds.
  std::ofstream(json, std::ios::trunc) << R"({"model_type": "qwen2_moe", "hidden_size": 2048, "intermediate_size": 5632,
    "moe_intermediate_size": 1408, "num_experts": 60, "num_experts_per_tok": 4, "decoder_sparse_step": 1,
    "mlp_only_layers": [0, 5], "num_hidden_layers": 24, "num_attention_heads": 16, "num_key_value_heads": 16,
    "vocab_size": 151936, "torch_dtype": "bfloat16"})";
  r = run("import-model '" + json.string() + "' --name m --out '" + out.string() + "'");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("mlp_only_layers"));
  CHECK_FALSE(std::filesystem::exists(out));
  // A size the model loader refuses (more layers than any model it takes) is refused here, and
  // no file is left to fail later at --model.
  std::ofstream(json, std::ios::trunc) << R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_hidden_layers": 100000, "num_attention_heads": 1, "num_key_value_heads": 1, "vocab_size": 32,
    "torch_dtype": "float16"})";
  r = run("import-model '" + json.string() + "' --name m --out '" + out.string() + "'");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("would not load") && Catch::Contains("layers"));
  CHECK(r.output.find("specdse-import-") == std::string::npos);  // no temporary file named
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("specdse --version prints the version and a git commit", "[first-use]") {
  const auto r = run("--version", false);
  CHECK(r.status == 0);
  CHECK(r.output.find("specdse 0.") == 0);
  CHECK(r.output.find("git commit ") != std::string::npos);
}

TEST_CASE("manifest.txt is YAML with version, commit and hashed inputs, no wall time, no absolute path", "[first-use]") {
  const auto dir = temp_dir("manifest");
  const auto r = run("reproduce table1 --no-plots --quiet --format csv --out '" + dir.string() + "'", false);
  REQUIRE(r.status == 0);
  std::ifstream in(dir / "table1/manifest.txt");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const YAML::Node m = YAML::Load(text);
  CHECK(m["reproduction"].as<std::string>() == "table1");
  CHECK(!m["specdse_version"].as<std::string>().empty());
  CHECK(!m["git_commit"].as<std::string>().empty());
  CHECK(!m["wall_time_s"]);
  REQUIRE(m["inputs"].IsSequence());
  CHECK(m["inputs"][0]["path"].as<std::string>() == "configs/hardware/v80.yaml");
  CHECK(m["inputs"][0]["fnv1a64"].as<std::string>().size() == 16);
  CHECK(text.find(kSource) == std::string::npos);
  CHECK(text.find(dir.string()) == std::string::npos);
  // Same sources, same bytes.
  const auto again = run("reproduce table1 --no-plots --quiet --format csv --out '" + dir.string() + "'", false);
  REQUIRE(again.status == 0);
  std::ifstream in2(dir / "table1/manifest.txt");
  CHECK(std::string((std::istreambuf_iterator<char>(in2)), std::istreambuf_iterator<char>()) == text);
  CHECK(experiments::yaml_quote("a \"b\" \\ c") == "\"a \\\"b\\\" \\\\ c\"");
}

TEST_CASE("golden warns when the CPU config does not describe this host", "[first-use]") {
  const auto r = run("golden --hw xeon-16c --models llama-68m --tokens 1 --contexts 64 --attention-model '' "
                     "--repeats 1 --warmup 0 --no-flush --format csv");
  CHECK(r.status == 0);
  CHECK(r.output.find("warning: 'xeon-16c'") != std::string::npos);
  CHECK(r.output.find("calibrate-host") != std::string::npos);
}

TEST_CASE("reproduction plots: a PDF beside every PNG, byte-identical when regenerated", "[first-use]") {
  experiments::ProcessOptions quiet;
  quiet.out = quiet.err = experiments::Stream::null;
  if (experiments::run_process({"/usr/bin/python3", "-c", "import matplotlib"}, quiet).status != 0 &&
      experiments::run_process({"python3", "-c", "import matplotlib"}, quiet).status != 0) {
    WARN("no Python with matplotlib here: plots not checked");
    return;
  }
  const auto dir = temp_dir("plots");
  auto read = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  REQUIRE(run("reproduce table4 --quiet --format csv --out '" + dir.string() + "'", false).status == 0);
  const auto png = read(dir / "table4/table4.png"), pdf = read(dir / "table4/table4.pdf");
  CHECK(png.size() > 1000);
  CHECK(pdf.rfind("%PDF", 0) == 0);
  CHECK(pdf.find("CreationDate") == std::string::npos);
  REQUIRE(run("reproduce table4 --quiet --format csv --out '" + dir.string() + "'", false).status == 0);
  CHECK(read(dir / "table4/table4.png") == png);
  CHECK(read(dir / "table4/table4.pdf") == pdf);
}

TEST_CASE("draft and algorithm options name the same thing in every command that takes one", "[first-use]") {
  // optimize, tree-search and scenario call it --algorithm; latency, window and policies --draft;
  // each takes the other spelling too and gives the same bytes.
  const std::string lat = "latency --hw v80 --model llama-3.1-8b-instruct --x 4 --context 1024 --format csv ";
  const auto by_draft = run(lat + "--draft longspec-tree", false);
  REQUIRE(by_draft.status == 0);
  CHECK(run(lat + "--algorithm longspec-tree", false).output == by_draft.output);
  const std::string win = "window --hw a100-80gb --model llama-3.1-8b-instruct --context 1024 --alpha 0.8 --format csv ";
  const auto w = run(win + "--draft eagle3-chain");
  REQUIRE(w.status == 0);
  CHECK(run(win + "--algorithm eagle3-chain").output == w.output);
  const std::string opt = "optimize --hw v80 --model llama-3.1-8b-instruct --context 1024 --format csv ";
  const auto o = run(opt + "--algorithm longspec-tree");
  REQUIRE(o.status == 0);
  CHECK(run(opt + "--draft longspec-tree").output == o.output);
}

TEST_CASE("optimize flags a ridge that is only a lower bound: x / T_v still rising at the largest x searched") {
  // The first data row's cell of `name`.
  auto cell = [](const std::string& args, const std::string& name) {
    const auto r = run(args + " --format csv", false);
    REQUIRE(r.status == 0);
    const auto t = cli_test::csv(r.output);
    REQUIRE(t.size() == 2);
    return t[1][cli_test::column(t[0], name)];
  };
  const std::string h100 = "optimize --hw h100-sxm --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024";
  CHECK_THAT(cell(h100 + " --x-max 40", "ridge_x_bound"), Catch::StartsWith("lower bound: x / T_v still rises at x = 40"));
  // The bound moves with the range searched.
  CHECK(std::stod(cell(h100, "ridge_x")) > std::stod(cell(h100 + " --x-max 40", "ridge_x")));
  // The V80 reaches its compute roof well inside the range: its ridge is no bound.
  const std::string v80 = "optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024";
  CHECK(cell(v80, "ridge_x_bound").empty());
  CHECK(std::stod(cell(v80, "ridge_x")) < 20);
}
