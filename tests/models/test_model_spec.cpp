#include <catch2/catch.hpp>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/drafts/draft_builder.hpp"
#include "models/operator_graph.hpp"

using namespace models;

TEST_CASE("Llama-3.1-8B has about 8.03 B parameters and 128 KiB of 16-bit KV per token") {
  const ModelSpec m = ConfigRegistry().model("llama-3.1-8b-instruct");
  CHECK(m.parameters() == Approx(8.03e9).epsilon(0.002));
  CHECK(m.kv_bytes_per_token() == 128.0 * 1024);
}

TEST_CASE("Llama-2-7B has about 6.74 B parameters") {
  const ModelSpec m = ConfigRegistry().model("llama-2-7b");
  CHECK(m.parameters() == Approx(6.74e9).epsilon(0.002));
  CHECK(m.kv_bytes_per_token() == 512.0 * 1024);  // 32 layers, MHA 32 x 128, K and V
}

TEST_CASE("Every shipped config loads") {
  const ConfigRegistry reg;
  for (const auto& name : reg.names("models")) CHECK_NOTHROW(reg.model(name));
  for (const auto& name : reg.names("hardware")) CHECK_NOTHROW(reg.hardware(name));
  for (const auto& name : reg.names("algorithms")) CHECK_NOTHROW(reg.algorithm(name));
  CHECK(reg.names("models").size() >= 16);
  CHECK(reg.names("hardware").size() >= 12);
}

TEST_CASE("Verify graph FLOPs are 2 x weights x tokens plus attention") {
  const ModelSpec m = ConfigRegistry().model("llama-3.1-8b-instruct");
  for (int x : {1, 7, 64}) {
    StepShape s;
    s.tokens = x;
    s.context = 0;
    s.include_lm_head = true;
    const StepGraph g = build_verify_graph(m, s);
    const double weights = m.layers * (m.layer_parameters() - 2.0 * m.hidden_size) + m.embedding_parameters();
    // With L = 0 attention adds 4 * heads * head_dim * x^2 per layer (QK and PV).
    const double attention = 4.0 * m.layers * m.attention_heads * m.head_dim * double(x) * x;
    CHECK(g.total_flops() == Approx(2.0 * weights * x + attention).epsilon(0.001));
    CHECK(g.total_weight_bytes() == Approx(2.0 * (weights + m.layers * 2.0 * m.hidden_size)).epsilon(1e-9));
  }
}

TEST_CASE("KV bytes read grow linearly with context, the LM head can be left out") {
  const ModelSpec m = ConfigRegistry().model("llama-3.1-8b-instruct");
  StepShape s;
  s.tokens = 4;
  s.context = 1000;
  const double kv1000 = build_verify_graph(m, s).total_kv_read_bytes();
  s.context = 2000;
  const double kv2000 = build_verify_graph(m, s).total_kv_read_bytes();
  CHECK(kv1000 == Approx(1000 * m.kv_bytes_per_token()));
  CHECK(kv2000 == Approx(2 * kv1000));
  s.include_lm_head = false;
  const StepGraph no_head = build_verify_graph(m, s);
  s.include_lm_head = true;
  CHECK(build_verify_graph(m, s).total_weight_bytes() - no_head.total_weight_bytes() ==
        Approx(m.embedding_parameters() * 2));
}

TEST_CASE("Draft pass widths follow the tree tables") {
  const ConfigRegistry reg;
  const AlgorithmSpec ls = reg.algorithm("longspec-tree");
  CHECK(ls.draft_pass_widths(1).empty());
  CHECK(ls.draft_pass_widths(13) == std::vector<int>{4, 4, 3, 1});
  for (int x = 2; x <= ls.max_x; ++x) {
    int nodes = 0;
    for (int w : ls.draft_pass_widths(x)) nodes += w;
    CHECK(nodes == x - 1);
  }
  const AlgorithmSpec eagle = reg.algorithm("eagle3-tree");
  // depth 4, top-k 4: the pass over the accepted tokens, then 4 expansions of the top-4 frontier.
  CHECK(eagle.draft_pass_widths(13) == std::vector<int>{1, 4, 4, 4, 4});
  const AlgorithmSpec chain = reg.algorithm("llama-68m");  // a model name: standalone chain
  CHECK(chain.draft_pass_widths(5) == std::vector<int>{1, 1, 1, 1});
  CHECK_THROWS_AS(ls.draft_pass_widths(ls.max_x + 1), InputError);
  CHECK_THROWS_AS(ls.draft_pass_widths(0), InputError);
}

TEST_CASE("LongSpec draft pass reads the target's KV over the full context, its own over 512") {
  const ConfigRegistry reg;
  const ModelSpec t = reg.model("llama-3.1-8b-instruct");
  const AlgorithmSpec a = reg.algorithm("longspec-tree");
  const StepGraph g = build_draft_pass_graph(a, t, 4, 8192);
  double cross = 0, self = 0;
  for (const auto& op : g.layer_ops) {
    if (op.cross_attention) cross += op.kv_read_bytes;
    else self += op.kv_read_bytes;
  }
  const double per_token_layer = 2.0 * t.kv_heads * t.head_dim * t.activation_bytes();
  CHECK(cross == Approx(8192 * per_token_layer));
  CHECK(self == Approx(512 * per_token_layer));
  CHECK(g.layer_count == 1);
}
