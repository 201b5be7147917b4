// Multi-token prediction (MTP) modules shipped with a target model, drafting for that model only
// (DeepSeek-V3 §2.2, MiMo-7B; vLLM's `method: mtp`). A module takes the target's last hidden
// state and the embedding of the token after it, RMS-normalises both, projects their
// concatenation (2d -> d), runs one decoder layer of the target's own shape (its MLP dense or MoE
// as the target's) with a KV cache of its own, and predicts through the final norm and the
// target's output head (shared with the target, so not counted again in memory). A chain of k
// draft tokens runs k passes, pass i on module i mod n (vLLM reuses the modules when k > n).
//
// Keys (configs/algorithms/*.yaml, `draft:` block):
//   target: the model whose checkpoint ships the modules (no other target may use them)
//   modules: how many the checkpoint ships (all loaded: their weights and KV caches count)
//   acceptance: published acceptance of draft positions 1..n (a list of probabilities)
//   acceptance_source: where those figures are published
#include <fmt/format.h>

#include <cmath>

#include "models/config_error.hpp"
#include "models/drafts/draft_builder.hpp"
#include "models/graph_parts.hpp"

namespace models {
namespace {

using namespace graph_parts;

// A checkpoint ships a few modules (DeepSeek-V3: 1, MiMo-7B: 2 in its config, MiMo-V2-Flash: 3);
// 64 bounds the memory a typo could claim.
constexpr long long kMaxModules = 64;
// Published acceptance is per draft position; a list longer than a chain's longest draft (15 in
// serve) could not be used.
constexpr std::size_t kMaxPublishedPositions = 64;

class MtpDraft : public DraftBuilder {
 public:
  void load(const YamlReader& d, DraftSpec& s) const override {
    d.allow_only({"type", "target", "modules", "acceptance", "acceptance_source"});
    s.mtp_target = d.string("target");
    s.mtp_modules = d.int_in("modules", 1, kMaxModules);
    const YAML::Node& list = d.node()["acceptance"];
    if (!list || !list.IsSequence() || list.size() == 0 || list.size() > kMaxPublishedPositions)
      d.fail("acceptance", fmt::format("a list of 1-{} probabilities (draft positions 1, 2, ...)", kMaxPublishedPositions),
             !list                ? std::string("nothing")
             : list.IsSequence()  ? fmt::format("{} entries", list.size())
             : list.IsScalar()    ? "'" + list.Scalar() + "'"
                                  : std::string("a map"));
    for (std::size_t i = 0; i < list.size(); ++i) {
      double p = 0;
      if (!list[i].IsScalar() || !YAML::convert<double>::decode(list[i], p) || !std::isfinite(p) || p <= 0 || p >= 1)
        d.fail(fmt::format("acceptance[{}]", i), "a probability in (0, 1)",
               list[i].IsScalar() ? "'" + list[i].Scalar() + "'" : std::string("a list or map"));
      s.mtp_acceptance.push_back(p);
    }
    s.mtp_acceptance_source = d.string("acceptance_source");
  }

  StepGraph build_pass_graph(const AlgorithmSpec& algorithm, const ModelSpec& target, int width, std::int64_t context,
                             int batch) const override {
    require_own_target(algorithm, target);
    StepGraph g = draft_head_graph(algorithm, target, width, context, batch);
    const std::int64_t mt = std::int64_t(batch) * width;
    const LayerShape s = shape_of(target);
    // Both inputs normalised (DeepSeek-V3's RMSNorm of h and of Emb), then concatenated and projected.
    g.layer_ops.push_back(sfu("mtp_input_norms", OpKind::norm, 2.0 * double(mt) * double(s.hidden), 2, s.abytes));
    g.layer_ops.push_back(gemm("mtp_input_proj", mt, s.hidden, 2 * s.hidden, s));
    append_decoder_layer(g.layer_ops, s, batch, width, context, MaskKind::tree);
    g.tail_ops.push_back(sfu("final_norm", OpKind::norm, double(mt) * s.hidden, 2, s.abytes));
    g.tail_ops.push_back(gemm("lm_head", mt, target.vocab_size, s.hidden, s));
    return g;
  }

  // The module reads the target's hidden states and has its layer shape: reshaped like an
  // EAGLE head (the shape fields stay the target's; pass_graph reads the target directly).
  bool has_own_layer_shape() const override { return true; }
  DraftSpec reshaped_for(const DraftSpec& draft, const ModelSpec& target) const override {
    return with_target_layer_shape(draft, target);
  }

  // vLLM's MTP proposer drafts its top-1 token at each step (a chain), as does SGLang's with the
  // EAGLE top-k of 1 that MiMo's README gives.
  bool drafts_trees() const override { return false; }

  // Every shipped module's own weights (projection, decoder layer, norms); the output head is
  // the target's, already in its memory.
  double weight_bytes(const AlgorithmSpec& algorithm, const ModelSpec& target) const override {
    const StepGraph g = build_draft_pass_graph(algorithm, target, 1, 0, 1);
    double module = 0;
    for (const auto& op : g.layer_ops) module += op.weight_bytes;
    return module * algorithm.draft.mtp_modules;
  }

  // One K and one V per module, token and KV head, over the whole context.
  double kv_cache_bytes(const DraftSpec& d, const ModelSpec& target, int batch, long long kv_tokens,
                        int tp) const override {
    const double kv_heads = std::ceil(double(target.kv_heads) / tp);
    return double(d.mtp_modules) * double(batch) * double(kv_tokens) * 2.0 * kv_heads * target.head_dim *
           target.activation_bytes();
  }

 private:
  // MTP modules are trained with their model: another target has no hidden states they can read.
  static void require_own_target(const AlgorithmSpec& a, const ModelSpec& target) {
    if (target.name != a.draft.mtp_target)
      throw InputError(fmt::format("{}: the MTP modules of {} draft for {} only, not {} (draft.target in {})", a.name,
                                   a.draft.mtp_target, a.draft.mtp_target, target.name,
                                   a.source_file.empty() ? a.name : a.source_file));
  }
};

const DraftBuilderRegistration mtp_draft_registration("mtp", std::make_unique<MtpDraft>());

}  // namespace
}  // namespace models
