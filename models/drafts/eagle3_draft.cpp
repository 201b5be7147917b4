// EAGLE-3 head: fuse three target feature layers (3d -> d), one decoder layer whose QKV input is
// [embedding, feature] (2d) with its own KV cache over the context, small-vocabulary LM head.
#include "models/drafts/draft_builder.hpp"
#include "models/drafts/graph_parts.hpp"

namespace models {
namespace {

using namespace graph_parts;

class Eagle3Draft : public DraftBuilder {
 public:
  void load(const YamlReader& d, DraftSpec& s) const override {
    s.hidden_size = int(d.positive_int("hidden_size"));
    s.intermediate_size = int(d.positive_int("intermediate_size"));
    s.attention_heads = int(d.positive_int("attention_heads"));
    s.kv_heads = int(d.positive_int("kv_heads"));
    s.head_dim = int(d.positive_int("head_dim"));
    s.qkv_input_factor = int(d.positive_int("qkv_input_factor"));
    s.fused_feature_layers = int(d.positive_int("fused_feature_layers"));
    s.draft_vocab_size = int(d.positive_int("draft_vocab_size"));
  }

  StepGraph pass_graph(const AlgorithmSpec& algorithm, const ModelSpec& target, int width,
                       std::int64_t context, int batch) const override {
    const DraftSpec& d = algorithm.draft;
    StepGraph g = draft_head_graph(algorithm, target, width, context, batch);
    const std::int64_t mt = std::int64_t(batch) * width;
    // The head's layer has its own shape but stores weights in the target's format.
    LayerShape s{d.hidden_size, d.intermediate_size, d.attention_heads, d.kv_heads, d.head_dim,
                 std::int64_t(d.qkv_input_factor) * d.hidden_size, true,
                 target.weight_bytes_per_param(), target.activation_bytes(),
                 target.dequant_ops_per_weight()};
    g.layer_ops.push_back(gemm("feature_fc", mt, s.hidden, std::int64_t(d.fused_feature_layers) * s.hidden, s));
    append_decoder_layer(g.layer_ops, s, batch, width, context, MaskKind::tree);
    g.tail_ops.push_back(sfu("final_norm", OpKind::norm, double(mt) * s.hidden, 2, s.abytes));
    g.tail_ops.push_back(gemm("lm_head", mt, d.draft_vocab_size, s.hidden, s));
    return g;
  }
};

const DraftBuilderRegistration registered("eagle3", std::make_unique<Eagle3Draft>());

}  // namespace
}  // namespace models
