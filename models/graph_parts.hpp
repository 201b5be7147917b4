#pragma once
// The parts graph builders assemble a step from (defined in models/operator_graph.cpp, beside
// which they live: the drafts build on the graph, never the reverse): the
// target's verification graph and every draft builder (models/drafts/) share them, so a draft
// layer is costed op for op like a target layer.
#include <cstdint>
#include <string>
#include <vector>

#include "models/model_spec.hpp"
#include "models/operator_graph.hpp"

namespace models::graph_parts {

// Shape of one transformer layer as the graph builders need it.
struct LayerShape {
  std::int64_t hidden, intermediate, heads, kv_heads, head_dim;
  std::int64_t qkv_input;  // input width of the QKV projection
  bool gated;
  double wbytes, abytes;
  double dequant = 0;  // SIMD lane-operations per weight to dequantise (0: native format)
  // MoE MLP (ModelSpec's MoE keys); experts = 0: the dense MLP above.
  std::int64_t experts = 0, top_k = 0, shared_experts = 0, moe_intermediate = 0;
  ExpertRouting routing;
};

LayerShape shape_of(const ModelSpec& m);

// InputError "WHAT: ..." unless tokens >= 1, context >= 0 and batch >= 1.
void check_shape(const std::string& what, int tokens, std::int64_t context, int batch);

// A weight GEMM of layer shape `s`: its weights are stored (and dequantised) in s's format.
Op gemm(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k, const LayerShape& s);

Op sfu(const std::string& name, OpKind kind, double elements, int passes, double abytes);

// QK^T, softmax and PV for `queries` tokens per sequence over `cached + fresh` keys.
void append_attention(std::vector<Op>& ops, const std::string& prefix, const LayerShape& s,
                      std::int64_t batch, std::int64_t queries, std::int64_t cached,
                      std::int64_t fresh, MaskKind mask, bool cross);

// A MoE layer's MLP over `tokens` (batch x tokens) rows as fused-MoE implementations launch it
// (vLLM's fused_moe, SGLang's): router GEMM, top-k routing, the shared experts, the permute
// (token-expert pairs sorted by expert, rows gathered), the routed experts' gate/up and down
// GEMMs as grouped GEMMs of tokens x top_k rows whose weight bytes are those of the expected
// distinct experts the rows touch under s.routing (models::expected_distinct_experts), not of
// all experts, and the combine (rows scaled by their router weights and summed per token).
void append_moe_mlp(std::vector<Op>& ops, const LayerShape& s, std::int64_t tokens,
                    const std::string& prefix = "");
// The same with the distinct experts given (a measured count: sim/golden/moe_layer_golden).
void append_moe_mlp_touching(std::vector<Op>& ops, const LayerShape& s, std::int64_t tokens,
                             double distinct_experts, const std::string& prefix = "");

// Standard pre-norm decoder layer: norm, QKV, attention, O, residual, norm, MLP, residual.
void append_decoder_layer(std::vector<Op>& ops, const LayerShape& s, std::int64_t batch,
                          std::int64_t tokens, std::int64_t cached, MaskKind mask,
                          const std::string& prefix = "");

}  // namespace models::graph_parts
