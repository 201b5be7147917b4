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
