#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/operator_graph.hpp"

using namespace models;

namespace {
double graph_weight_bytes(const ModelSpec& m, int batch, int tokens) {
  StepShape shape;
  shape.batch = batch;
  shape.tokens = tokens;
  shape.context = 1024;
  shape.mask = tokens > 1 ? MaskKind::tree : MaskKind::causal;
  return build_verify_graph(m, shape).total_weight_bytes();
}
}  // namespace

TEST_CASE("Expected distinct experts under uniform top-k: k at one token, tends to E") {
  CHECK(expected_distinct_experts(16, 1, 1) == Approx(1.0));
  CHECK(expected_distinct_experts(128, 8, 1) == Approx(8.0));
  CHECK(expected_distinct_experts(16, 1, 0) == Approx(0.0));
  // E (1 - (1 - k/E)^T) by hand: 16 (1 - (15/16)^4)
  CHECK(expected_distinct_experts(16, 1, 4) == Approx(16 * (1 - std::pow(15.0 / 16, 4))));
  double last = 0;
  for (double t : {1.0, 2.0, 8.0, 64.0, 512.0}) {
    const double e = expected_distinct_experts(128, 1, t);
    CHECK(e > last);
    CHECK(e <= 128);
    last = e;
  }
  CHECK(expected_distinct_experts(128, 1, 1e5) == Approx(128.0));
  CHECK_THROWS_AS(expected_distinct_experts(16, 17, 1), InputError);
}

TEST_CASE("Llama 4 Scout and Maverick: published totals of about 109 B and 400 B parameters") {
  const ConfigRegistry reg;
  const ModelSpec scout = reg.model("llama-4-scout");
  const ModelSpec maverick = reg.model("llama-4-maverick");
  CHECK(scout.is_moe());
  CHECK(scout.moe_layers() == 48);
  CHECK(maverick.moe_layers() == 24);
  // Paper 004 §2.2: about 109 B and 400 B total parameters.
  CHECK(scout.parameters() == Approx(109e9).epsilon(0.02));
  CHECK(maverick.parameters() == Approx(400e9).epsilon(0.02));
}

TEST_CASE("Dense model's verify graph has no MoE ops and weights independent of batch") {
  const ModelSpec m = ConfigRegistry().model("llama-3.1-8b-instruct");
  CHECK_FALSE(m.is_moe());
  StepShape shape;
  const StepGraph g = build_verify_graph(m, shape);
  CHECK(g.layer_count == 32);
  CHECK(g.layer_ops.size() == 10);  // norm, qkv, qk, softmax, pv, o, norm, gate_up, silu, down
  for (const auto& op : g.layer_ops) CHECK(op.name.find("expert") == std::string::npos);
  CHECK(graph_weight_bytes(m, 1, 1) == graph_weight_bytes(m, 64, 4));
  // All weights read once per step: the parameters less the input embedding and final norm.
  CHECK(graph_weight_bytes(m, 1, 1) == Approx((m.parameters() - m.embedding_parameters() - m.hidden_size) * 2));
}

TEST_CASE("MoE weight reads grow with batch x tokens towards all experts") {
  const ConfigRegistry reg;
  const ModelSpec scout = reg.model("llama-4-scout");
  const ModelSpec maverick = reg.model("llama-4-maverick");
  for (const ModelSpec& m : {scout, maverick}) {
    double last = 0;
    for (int b : {1, 2, 8, 32, 128}) {
      const double w = graph_weight_bytes(m, b, 4);
      CHECK(w > last);
      last = w;
    }
    // One token reads the active parameters; many read (nearly) all of them.
    const double all = (m.parameters() - m.embedding_parameters() - m.hidden_size) * 2;
    CHECK(graph_weight_bytes(m, 1, 1) < 0.3 * all);
    CHECK(graph_weight_bytes(m, 4096, 1) == Approx(all).epsilon(0.01));
  }
  // Scout at one token: 17 B active parameters (paper 004 §2.2), about 15 B of them in layers.
  const double active_layers = graph_weight_bytes(scout, 1, 1) / 2;
  CHECK(active_layers + scout.embedding_parameters() == Approx(17e9).epsilon(0.03));
}

TEST_CASE("Maverick's graph repeats a dense + MoE unit 24 times, FLOPs count top-k rows only") {
  const ModelSpec m = ConfigRegistry().model("llama-4-maverick");
  StepShape shape;
  shape.batch = 8;
  const StepGraph g = build_verify_graph(m, shape);
  CHECK(g.layer_count == 24);
  int dense = 0, moe = 0;
  for (const auto& op : g.layer_ops) {
    if (op.name == "dense0.gate_up_proj") ++dense;
    if (op.name == "moe.experts_gate_up_proj") {
      ++moe;
      CHECK(op.m == 8);  // 8 tokens x top-1
      CHECK(op.flops == Approx(2.0 * 8 * 2 * 8192 * 5120));
      CHECK(op.weight_bytes == Approx(expected_distinct_experts(128, 1, 8) * 2 * 8192 * 5120 * 2));
    }
  }
  CHECK(dense == 1);
  CHECK(moe == 1);
}

TEST_CASE("MoE config with top-k above the expert count is an InputError naming the key") {
  const std::string path = (std::filesystem::temp_directory_path() / "specdse_test_moe_topk.yaml").string();
  {
    std::ofstream f(path);
    f << "name: bad-moe\nlayers: 2\nhidden_size: 64\nintermediate_size: 128\nattention_heads: 4\nkv_heads: 2\n"
         "head_dim: 16\nvocab_size: 100\ntied_embeddings: false\nmlp: gated\nweight_bits: 16\nactivation_bits: 16\n"
         "num_experts: 4\nexperts_per_token: 5\nmoe_intermediate_size: 32\n";
  }
  try {
    load_model(path);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("experts_per_token") != std::string::npos);
  }
  std::filesystem::remove(path);
}

TEST_CASE("Zipf routing: exact for top-1, k experts at one token, fewer distinct experts than uniform") {
  const ExpertRouting zipf{1.0};
  // Top-1: sum over i of 1 - (1 - p_i)^T with p_i = (1/(i+1)) / H_E, by hand for E = 4, T = 3.
  const double h = 1 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4;
  double by_hand = 0;
  for (int i = 1; i <= 4; ++i) by_hand += 1 - std::pow(1 - 1.0 / (i * h), 3);
  CHECK(expected_distinct_experts(4, 1, 3, zipf) == Approx(by_hand));
  // Exponent 0 is the uniform law; one token touches exactly k experts under any law.
  CHECK(expected_distinct_experts(128, 1, 64, ExpertRouting{0.0}) == Approx(expected_distinct_experts(128, 1, 64)));
  for (int k : {1, 2, 8})
    for (double s : {0.5, 1.0, 2.0, 4.0}) CHECK(expected_distinct_experts(128, k, 1, ExpertRouting{s}) == Approx(double(k)));
  // Top-k = E: every expert, always.
  CHECK(expected_distinct_experts(8, 8, 5, zipf) == Approx(8.0));
  // More skew, fewer experts; more tokens, more experts, never more than E.
  for (double t : {8.0, 64.0, 512.0}) {
    double last = expected_distinct_experts(128, 2, t);
    for (double s : {0.5, 1.0, 2.0}) {
      const double e = expected_distinct_experts(128, 2, t, ExpertRouting{s});
      CHECK(e < last);
      CHECK(e > 0);
      last = e;
    }
  }
  CHECK(expected_distinct_experts(128, 1, 1e7, zipf) == Approx(128.0).epsilon(1e-3));
  CHECK_THROWS_WITH(expected_distinct_experts(128, 1, 8, ExpertRouting{-1.0}), Catch::Contains("expert_routing_zipf_exponent"));
  CHECK_THROWS_WITH(expected_distinct_experts(128, 1, 8, ExpertRouting{4.5}), Catch::Contains("expert_routing_zipf_exponent"));
}

TEST_CASE("expert_routing_zipf_exponent in a model YAML: fewer expert bytes per verify, refused on a dense model or out of range") {
  const ConfigRegistry reg;
  const auto dir = std::filesystem::temp_directory_path() / "specdse_test_zipf_routing";
  std::filesystem::create_directories(dir);
  std::string maverick;
  {
    std::ifstream in(reg.path("models", "llama-4-maverick"));
    maverick.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto write = [&](const std::string& name, const std::string& text) {
    const auto path = dir / name;
    std::ofstream(path) << text;
    return path.string();
  };
  const ModelSpec skewed = load_model(write("skewed.yaml", maverick + "expert_routing_zipf_exponent: 1.0\n"));
  CHECK(skewed.expert_routing.zipf_exponent == 1.0);
  const ModelSpec uniform = reg.model("llama-4-maverick");
  CHECK(uniform.expert_routing.uniform());
  CHECK(graph_weight_bytes(skewed, 1, 1) == Approx(graph_weight_bytes(uniform, 1, 1)));  // one token: one expert
  CHECK(graph_weight_bytes(skewed, 64, 1) < 0.8 * graph_weight_bytes(uniform, 64, 1));
  CHECK_THROWS_WITH(load_model(write("too_skewed.yaml", maverick + "expert_routing_zipf_exponent: 9\n")),
                    Catch::Contains("expert_routing_zipf_exponent"));
  std::string dense;
  {
    std::ifstream in(reg.path("models", "llama-3.2-1b"));
    dense.assign(std::istreambuf_iterator<char>(in), {});
  }
  CHECK_THROWS_WITH(load_model(write("dense.yaml", dense + "expert_routing_zipf_exponent: 1.0\n")),
                    Catch::Contains("expert_routing_zipf_exponent"));
  std::filesystem::remove_all(dir);
}
