// EAGLE-3 head: fuse three target feature layers (3d -> d), one decoder layer whose QKV input is
// [embedding, feature] (2d) with its own KV cache over the context, small-vocabulary LM head.
// `decoder_layers` > 1 stacks further dense layers (QKV input d) behind the first, each with its
// own KV cache: the multi-layer dense drafts of paper 004 §2.3.
#include <fmt/format.h>

#include <cmath>

#include "models/drafts/draft_builder.hpp"
#include "models/graph_parts.hpp"

namespace models {
namespace {

using namespace graph_parts;

// Bounds of the head's sizes: those of a target model (models/model_spec.cpp), and 64 for the
// input factors (EAGLE-3: 2 and 3), so nothing wraps in int.
constexpr long long kMaxDraftWidth = 1 << 22;
constexpr long long kMaxDraftHeads = 1 << 16;
constexpr long long kMaxDraftVocabulary = 1 << 26;
constexpr long long kMaxFactor = 64;
// A head is a few layers (paper 004 §2.3 found no gain beyond 3); 64 bounds the work per pass.
constexpr long long kMaxDecoderLayers = 64;

class Eagle3Draft : public DraftBuilder {
 public:
  void load(const YamlReader& d, DraftSpec& s) const override {
    d.allow_only({"type", "hidden_size", "intermediate_size", "attention_heads", "kv_heads", "head_dim",
                  "qkv_input_factor", "fused_feature_layers", "draft_vocab_size", "decoder_layers"});
    // The head's sizes share the target model's bounds (models/model_spec.cpp).
    s.hidden_size = d.int_in("hidden_size", 1, kMaxDraftWidth);
    s.intermediate_size = d.int_in("intermediate_size", 1, kMaxDraftWidth);
    s.attention_heads = d.int_in("attention_heads", 1, kMaxDraftHeads);
    s.kv_heads = d.int_in("kv_heads", 1, kMaxDraftHeads);
    s.head_dim = d.int_in("head_dim", 1, kMaxDraftHeads);
    // QKV input = factor x hidden and fc input = layers x hidden: EAGLE-3 uses 2 and 3.
    s.qkv_input_factor = d.int_in("qkv_input_factor", 1, kMaxFactor);
    s.fused_feature_layers = d.int_in("fused_feature_layers", 1, kMaxFactor);
    s.draft_vocab_size = d.int_in("draft_vocab_size", 1, kMaxDraftVocabulary);
    s.decoder_layers = d.has("decoder_layers") ? d.int_in("decoder_layers", 1, kMaxDecoderLayers) : 1;
  }

  StepGraph build_pass_graph(const AlgorithmSpec& algorithm, const ModelSpec& target, int width,
                             std::int64_t context, int batch) const override {
    const DraftSpec& d = algorithm.draft;
    StepGraph g = draft_head_graph(algorithm, target, width, context, batch);
    const std::int64_t mt = std::int64_t(batch) * width;
    // The head's layer has its own shape but stores weights in the target's format.
    LayerShape s{d.hidden_size, d.intermediate_size, d.attention_heads, d.kv_heads, d.head_dim,
                 std::int64_t(d.qkv_input_factor) * d.hidden_size, true,
                 target.weight_bytes_per_param(), target.activation_bytes(),
                 target.dequant_ops_per_weight(), /*experts (a dense layer)*/ 0, 0, 0, 0, ExpertRouting{}};
    g.layer_ops.push_back(gemm("feature_fc", mt, s.hidden, std::int64_t(d.fused_feature_layers) * s.hidden, s));
    append_decoder_layer(g.layer_ops, s, batch, width, context, MaskKind::tree);
    LayerShape dense = s;
    dense.qkv_input = d.hidden_size;
    for (int l = 2; l <= d.decoder_layers; ++l)
      append_decoder_layer(g.layer_ops, dense, batch, width, context, MaskKind::tree, fmt::format("layer{}_", l));
    g.tail_ops.push_back(sfu("final_norm", OpKind::norm, double(mt) * s.hidden, 2, s.abytes));
    g.tail_ops.push_back(gemm("lm_head", mt, d.draft_vocab_size, s.hidden, s));
    return g;
  }

  // The head reads the target's fused features, so its layer must have the target's width.
  bool has_own_layer_shape() const override { return true; }

  DraftSpec reshaped_for(const DraftSpec& draft, const ModelSpec& target) const override {
    return with_target_layer_shape(draft, target);
  }

  // One K and one V per decoder layer, token and KV head, over the whole context.
  double kv_cache_bytes(const DraftSpec& d, const ModelSpec& target, int batch, long long kv_tokens,
                        int tp) const override {
    const double kv_heads = std::ceil(double(d.kv_heads) / tp);
    return double(d.decoder_layers) * double(batch) * double(kv_tokens) * 2.0 * kv_heads * d.head_dim *
           target.activation_bytes();
  }
};

const DraftBuilderRegistration eagle3_draft_registration("eagle3", std::make_unique<Eagle3Draft>());

}  // namespace
}  // namespace models
