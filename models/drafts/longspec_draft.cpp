// LongSpec draft: one decoder layer with sliding-window self-attention, then cross-attention on
// the target's last-layer KV cache, then the MLP; the target's LM head.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/drafts/draft_builder.hpp"
#include "models/graph_parts.hpp"

namespace models {
namespace {

using namespace graph_parts;

class LongSpecDraft : public DraftBuilder {
 public:
  void load(const YamlReader& d, DraftSpec& s) const override {
    d.allow_only({"type", "self_attention_window_tokens"});
    // A window above the int range is a typo; a window longer than the context just reads it all.
    s.self_attention_window_tokens = d.int_in("self_attention_window_tokens", 1, std::numeric_limits<int>::max());
  }

  StepGraph build_pass_graph(const AlgorithmSpec& algorithm, const ModelSpec& target, int width,
                             std::int64_t context, int batch) const override {
    const DraftSpec& d = algorithm.draft;
    StepGraph g = draft_head_graph(algorithm, target, width, context, batch);
    const std::int64_t mt = std::int64_t(batch) * width;
    // Self-attention over its own sliding window, then cross-attention on the target's
    // last-layer KV cache (full context; K/V are read, not recomputed), then the MLP.
    LayerShape s = shape_of(target);
    const std::int64_t window = std::min<std::int64_t>(context, d.self_attention_window_tokens);
    append_decoder_layer(g.layer_ops, s, batch, width, window, MaskKind::tree, "self_");
    // Move the MLP behind the cross-attention block: split at the MLP norm.
    auto mlp_begin = std::find_if(g.layer_ops.begin(), g.layer_ops.end(),
                                  [](const Op& op) { return op.name == "self_mlp_norm"; });
    std::vector<Op> mlp(mlp_begin, g.layer_ops.end());
    g.layer_ops.erase(mlp_begin, g.layer_ops.end());
    const std::int64_t q = s.heads * s.head_dim;
    g.layer_ops.push_back(sfu("cross_norm", OpKind::norm, double(mt) * s.hidden, 2, s.abytes));
    g.layer_ops.back().weight_bytes = double(s.hidden) * s.wbytes;
    g.layer_ops.push_back(gemm("cross_q_proj", mt, q, s.hidden, s));
    append_attention(g.layer_ops, "cross_attn_", s, batch, width, context, 0, MaskKind::causal, true);
    g.layer_ops.push_back(gemm("cross_o_proj", mt, s.hidden, q, s));
    for (auto& op : mlp) op.name = op.name.substr(5);  // "self_mlp_norm" -> "mlp_norm"
    g.layer_ops.insert(g.layer_ops.end(), mlp.begin(), mlp.end());
    g.tail_ops.push_back(sfu("final_norm", OpKind::norm, double(mt) * s.hidden, 2, s.abytes));
    g.tail_ops.push_back(gemm("lm_head", mt, target.vocab_size, s.hidden, s));
    return g;
  }

  // Only the self-attention keeps a cache, over its window; it has the target's shape (the
  // cross-attention reads the target's own cache).
  double kv_cache_bytes(const DraftSpec& d, const ModelSpec& target, int batch, long long kv_tokens,
                        int tp) const override {
    const double window = double(std::min<long long>(kv_tokens, d.self_attention_window_tokens));
    const double kv_heads = std::ceil(double(target.kv_heads) / tp);
    return double(batch) * window * 2.0 * kv_heads * target.head_dim * target.activation_bytes();
  }
};

const DraftBuilderRegistration longspec_draft_registration("longspec", std::make_unique<LongSpecDraft>());

}  // namespace
}  // namespace models
