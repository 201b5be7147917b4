#include "models/operator_graph.hpp"

#include <type_traits>

#include <fmt/format.h>

#include "models/config_error.hpp"
#include "models/graph_parts.hpp"

namespace models {

std::string to_string(OpKind kind) {
  switch (kind) {
    case OpKind::gemm: return "gemm";
    case OpKind::attention_qk: return "attention_qk";
    case OpKind::attention_pv: return "attention_pv";
    case OpKind::softmax: return "softmax";
    case OpKind::norm: return "norm";
    case OpKind::elementwise: return "elementwise";
  }
  return "?";
}

namespace graph_parts {

LayerShape shape_of(const ModelSpec& m) {
  return {m.hidden_size, m.intermediate_size, m.attention_heads, m.kv_heads, m.head_dim,
          m.hidden_size, m.mlp == MlpKind::gated, m.weight_bytes_per_param(), m.activation_bytes(),
          m.dequant_ops_per_weight(), m.num_experts, m.experts_per_token, m.shared_experts,
          m.moe_intermediate_size, m.expert_routing};
}

// A weight GEMM of layer shape `s`: its weights are stored (and dequantised) in s's format.
Op gemm(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k, const LayerShape& s) {
  return make_gemm_op(name, m, n, k, s.wbytes, s.abytes, s.dequant);
}

Op sfu(const std::string& name, OpKind kind, double elements, int passes, double abytes) {
  Op op;
  op.name = name;
  op.kind = kind;
  op.sfu_elements = elements;
  op.sfu_passes = passes;
  op.flops = 5.0 * elements;  // a few flops per element; never the bottleneck's main term
  op.activation_bytes = 2.0 * elements * abytes;
  if (kind != OpKind::softmax) {  // the attention softmax runs on PV's way in (operator_graph.hpp)
    // One input tensor of `elements`. The gated SiLU-and-multiply reads two (gate and up) but
    // is counted as one, as paper 000's simulator does (up_proj's output is multiplied on its
    // way out; its per-layer activation loads have 2 x intermediate, not 3).
    op.activation_load_bytes = elements * abytes;
    op.activation_store_bytes = elements * abytes;
  }
  return op;
}

// QK^T, softmax and PV for `queries` tokens per sequence over `cached + fresh` keys.
void append_attention(std::vector<Op>& ops, const std::string& prefix, const LayerShape& s,
                      std::int64_t batch, std::int64_t queries, std::int64_t cached,
                      std::int64_t fresh, MaskKind mask, bool cross) {
  const std::int64_t keys = cached + fresh;
  const double kv_head_bytes = double(s.head_dim) * s.abytes;  // one K (or V) vector
  Op qk;
  qk.name = prefix + "qk";
  qk.kind = OpKind::attention_qk;
  qk.m = queries;
  qk.n = keys;
  qk.k = s.head_dim;
  qk.batch = batch * s.heads;
  qk.flops = 2.0 * qk.batch * queries * keys * s.head_dim;
  qk.kv_read_bytes = double(batch) * cached * s.kv_heads * kv_head_bytes;
  qk.heads = s.heads;
  qk.kv_heads = s.kv_heads;
  qk.cached_keys = cached;
  qk.new_keys = fresh;
  qk.mask = mask;
  qk.cross_attention = cross;
  qk.activation_bytes = double(batch) * queries * s.heads * (s.head_dim + keys) * s.abytes;
  // Off-chip: Q and the step's own K in, the scores out.
  const double scores_bytes = double(batch) * queries * s.heads * keys * s.abytes;
  const double fresh_kv_bytes = double(batch) * fresh * s.kv_heads * kv_head_bytes;  // K (or V) of the step's tokens
  qk.activation_load_bytes = double(batch) * queries * s.heads * kv_head_bytes + fresh_kv_bytes;
  qk.activation_store_bytes = scores_bytes;
  ops.push_back(qk);

  ops.push_back(sfu(prefix + "softmax", OpKind::softmax, double(batch) * s.heads * queries * keys,
                    2, s.abytes));

  Op pv = qk;
  pv.name = prefix + "pv";
  pv.kind = OpKind::attention_pv;
  pv.n = s.head_dim;
  pv.k = keys;
  pv.activation_bytes = double(batch) * queries * s.heads * (keys + s.head_dim) * s.abytes;
  // Off-chip: the scores and the step's own V in, the attention output out.
  pv.activation_load_bytes = scores_bytes + fresh_kv_bytes;
  pv.activation_store_bytes = double(batch) * queries * s.heads * kv_head_bytes;
  ops.push_back(pv);
}

void append_moe_mlp(std::vector<Op>& ops, const LayerShape& s, std::int64_t mt,
                    const std::string& prefix) {
  append_moe_mlp_touching(ops, s, mt,
                          expected_distinct_experts(int(s.experts), int(s.top_k), double(mt), s.routing), prefix);
}

void append_moe_mlp_touching(std::vector<Op>& ops, const LayerShape& s, std::int64_t mt, double distinct,
                             const std::string& prefix) {
  const std::int64_t f = s.moe_intermediate;
  ops.push_back(gemm(prefix + "router", mt, s.experts, s.hidden, s));
  // Top-k of the router's logits and their softmax (or Llama 4's sigmoid): a kernel of its own over
  // mt x E logits (not OpKind::softmax, which stands for attention's softmax fused into PV).
  ops.push_back(sfu(prefix + "router_topk", OpKind::elementwise, double(mt) * s.experts, 2, s.abytes));
  if (s.shared_experts > 0) {
    const std::int64_t fs = s.shared_experts * f;
    ops.push_back(gemm(prefix + "shared_gate_up_proj", mt, 2 * fs, s.hidden, s));
    ops.push_back(sfu(prefix + "shared_silu_mul", OpKind::elementwise, double(mt) * fs, 1, s.abytes));
    ops.push_back(gemm(prefix + "shared_down_proj", mt, s.hidden, fs, s));
  }
  // Routed experts as grouped GEMMs over the mt x top_k (token, expert) rows: FLOPs of every
  // row, weights of the distinct experts those mt tokens touch.
  const std::int64_t rows = mt * s.top_k;
  // Permute: the (token, expert) pairs sorted by expert and each row's hidden vector gathered into
  // its expert's group (one memory-bound kernel of rows x hidden in and out; fused-MoE kernels that
  // gather on the GEMM's load still launch the alignment kernel, whose fixed cost this carries).
  ops.push_back(sfu(prefix + "experts_permute", OpKind::elementwise, double(rows) * s.hidden, 1, s.abytes));
  auto routed = [&](const std::string& name, std::int64_t n, std::int64_t k) {
    Op op = gemm(prefix + name, rows, n, k, s);
    op.weight_bytes = distinct * double(n) * k * s.wbytes;
    if (op.dequant_weights > 0) op.dequant_weights = distinct * double(n) * k;
    return op;
  };
  ops.push_back(routed("experts_gate_up_proj", 2 * f, s.hidden));
  ops.push_back(sfu(prefix + "experts_silu_mul", OpKind::elementwise, double(rows) * f, 1, s.abytes));
  ops.push_back(routed("experts_down_proj", s.hidden, f));
  // Combine: each row scaled by its router weight and summed into its token's output, with the
  // shared experts' (rows x hidden read; counted as one tensor in and out like every sfu op).
  ops.push_back(sfu(prefix + "experts_combine", OpKind::elementwise, double(rows) * s.hidden, 1, s.abytes));
}

// Standard pre-norm decoder layer: norm, QKV, attention, O, residual, norm, MLP, residual.
void append_decoder_layer(std::vector<Op>& ops, const LayerShape& s, std::int64_t batch,
                          std::int64_t tokens, std::int64_t cached, MaskKind mask,
                          const std::string& prefix) {
  const std::int64_t mt = batch * tokens;
  const std::int64_t q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  ops.push_back(sfu(prefix + "attn_norm", OpKind::norm, double(mt) * s.hidden, 2, s.abytes));
  ops.back().weight_bytes = double(s.hidden) * s.wbytes;
  Op qkv = gemm(prefix + "qkv_proj", mt, q + 2 * kv, s.qkv_input, s);
  qkv.kv_write_bytes = double(mt) * 2 * kv * s.abytes;
  qkv.activation_store_bytes -= qkv.kv_write_bytes;  // the new K/V are the cache write
  ops.push_back(qkv);
  append_attention(ops, prefix + "attn_", s, batch, tokens, cached, tokens, mask, false);
  ops.push_back(gemm(prefix + "o_proj", mt, s.hidden, q, s));
  ops.push_back(sfu(prefix + "mlp_norm", OpKind::norm, double(mt) * s.hidden, 2, s.abytes));
  ops.back().weight_bytes = double(s.hidden) * s.wbytes;
  if (s.experts > 0) {
    append_moe_mlp(ops, s, mt, prefix);
    return;
  }
  if (s.gated) {
    ops.push_back(gemm(prefix + "gate_up_proj", mt, 2 * s.intermediate, s.hidden, s));
    ops.push_back(sfu(prefix + "silu_mul", OpKind::elementwise, double(mt) * s.intermediate, 1, s.abytes));
  } else {
    ops.push_back(gemm(prefix + "fc1", mt, s.intermediate, s.hidden, s));
    ops.push_back(sfu(prefix + "activation", OpKind::elementwise, double(mt) * s.intermediate, 1, s.abytes));
  }
  ops.push_back(gemm(prefix + (s.gated ? "down_proj" : "fc2"), mt, s.hidden, s.intermediate, s));
}

void check_shape(const std::string& what, int tokens, std::int64_t context, int batch) {
  if (tokens < 1) throw InputError(fmt::format("{}: x (tokens per step) must be >= 1, got {}", what, tokens));
  if (context < 0) throw InputError(fmt::format("{}: context must be >= 0, got {}", what, context));
  if (batch < 1) throw InputError(fmt::format("{}: batch must be >= 1, got {}", what, batch));
}

}  // namespace graph_parts

using namespace graph_parts;

Op make_gemm_op(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k,
                double wbytes, double abytes, double dequant_ops_per_weight) {
  Op op;
  op.name = name;
  op.kind = OpKind::gemm;
  op.m = m;
  op.n = n;
  op.k = k;
  op.flops = 2.0 * m * n * k;
  op.weight_bytes = double(n) * k * wbytes;
  op.activation_bytes = double(m) * (n + k) * abytes;
  op.activation_load_bytes = double(m) * k * abytes;
  op.activation_store_bytes = double(m) * n * abytes;
  if (dequant_ops_per_weight > 0) {
    op.dequant_weights = double(n) * k;
    op.dequant_ops_per_weight = dequant_ops_per_weight;
  }
  return op;
}

namespace {

// Appends the raw bytes of a trivially copyable value (a fingerprint, not a portable format).
template <class T>
void put(std::string& out, const T& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

void put_op(std::string& out, const Op& op) {
  put(out, op.name.size());
  out += op.name;
  put(out, op.kind);
  for (std::int64_t v : {op.m, op.n, op.k, op.batch, op.heads, op.kv_heads, op.cached_keys, op.new_keys}) put(out, v);
  for (double v : {op.flops, op.weight_bytes, op.kv_read_bytes, op.kv_write_bytes, op.activation_bytes,
                   op.activation_load_bytes, op.activation_store_bytes, op.dequant_weights, op.dequant_ops_per_weight,
                   op.sfu_elements})
    put(out, v);
  put(out, op.sfu_passes);
  put(out, op.mask);
  put(out, op.cross_attention);
}

}  // namespace

std::string graph_fingerprint(const StepGraph& g) {
  std::string out;
  out.reserve(64 + 160 * (g.layer_ops.size() + g.tail_ops.size()));
  put(out, g.layer_count);
  put(out, g.tokens);
  put(out, g.batch);
  put(out, g.context);
  put(out, g.step_work);
  put(out, g.draft_pass);
  put(out, g.sampled);
  put(out, g.step_host_apart);
  put(out, g.layer_host_share);
  const auto& w = g.widths;
  for (std::int64_t v : {w.hidden, w.q, w.kv, w.ffn, w.vocab, w.heads, w.kv_heads}) put(out, v);
  put(out, w.element_bytes);
  for (const auto* ops : {&g.layer_ops, &g.tail_ops}) {
    put(out, ops->size());
    for (const auto& op : *ops) put_op(out, op);
  }
  return out;
}

double StepGraph::total_flops() const {
  double f = 0;
  for (const auto& op : layer_ops) f += op.flops;
  f *= layer_count;
  for (const auto& op : tail_ops) f += op.flops;
  return f;
}

double StepGraph::total_weight_bytes() const {
  double b = 0;
  for (const auto& op : layer_ops) b += op.weight_bytes;
  b *= layer_count;
  for (const auto& op : tail_ops) b += op.weight_bytes;
  return b;
}

double StepGraph::total_kv_read_bytes() const {
  double b = 0;
  for (const auto& op : layer_ops) b += op.kv_read_bytes;
  b *= layer_count;
  for (const auto& op : tail_ops) b += op.kv_read_bytes;
  return b;
}

StepGraph build_verify_graph(const ModelSpec& model, const StepShape& shape) {
  check_shape(model.name, shape.tokens, shape.context, shape.batch);
  const LayerShape s = shape_of(model);
  StepGraph g;
  g.label = fmt::format("verify {} x={} L={} b={}{}{}", model.name, shape.tokens, shape.context,
                        shape.batch, shape.mask == MaskKind::tree ? " tree" : "",
                        shape.include_lm_head ? "" : " no-lm-head");
  g.tokens = shape.tokens;
  g.batch = shape.batch;
  g.context = shape.context;
  g.layer_count = model.layers;
  g.widths.hidden = s.hidden;
  g.widths.q = s.heads * s.head_dim;
  g.widths.kv = s.kv_heads * s.head_dim;
  g.widths.ffn = s.intermediate;
  g.widths.vocab = model.vocab_size;
  g.widths.heads = s.heads;
  g.widths.kv_heads = s.kv_heads;
  g.widths.element_bytes = s.abytes;
  if (model.is_moe() && model.moe_layer_step > 1) {
    // Interleaved MoE (Llama 4 Maverick): the repeating unit is moe_layer_step - 1 dense layers
    // and then one MoE layer (HF Llama4: layer i is MoE when (i + 1) % step == 0), so
    // layer_ops hold one unit and layer_count counts units.
    LayerShape dense = s;
    dense.experts = 0;
    for (int i = 0; i + 1 < model.moe_layer_step; ++i)
      append_decoder_layer(g.layer_ops, dense, shape.batch, shape.tokens, shape.context, shape.mask,
                           fmt::format("dense{}.", i));
    append_decoder_layer(g.layer_ops, s, shape.batch, shape.tokens, shape.context, shape.mask, "moe.");
    g.layer_count = model.layers / model.moe_layer_step;
  } else {
    append_decoder_layer(g.layer_ops, s, shape.batch, shape.tokens, shape.context, shape.mask);
  }
  const std::int64_t mt = std::int64_t(shape.batch) * shape.tokens;
  g.tail_ops.push_back(sfu("final_norm", OpKind::norm, double(mt) * s.hidden, 2, s.abytes));
  if (shape.include_lm_head)
    g.tail_ops.push_back(gemm("lm_head", mt, model.vocab_size, s.hidden, s));
  return g;
}

}  // namespace models
