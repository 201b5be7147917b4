// A standalone draft: an independent small LLM (configs/models, named by `draft.model` and
// resolved by ConfigRegistry::algorithm) whose pass is its own causal verification step.
#include <fmt/format.h>

#include "models/config_error.hpp"
#include "models/drafts/draft_builder.hpp"

namespace models {
namespace {

class StandaloneDraft : public DraftBuilder {
 public:
  void load(const YamlReader& d, DraftSpec& s) const override {
    d.allow_only({"type", "model"});
    s.model_name = d.string("model");
  }

  StepGraph build_pass_graph(const AlgorithmSpec& algorithm, const ModelSpec&, int width, std::int64_t context,
                             int batch) const override {
    const DraftSpec& d = algorithm.draft;
    if (!d.model) throw InputError(algorithm.name + ": standalone draft model not resolved");
    StepGraph g = build_verify_graph(*d.model, {width, context, batch, MaskKind::causal, true});
    g.label = fmt::format("draft {} w={} L={} b={}", d.model->name, width, context, batch);
    return g;
  }

  // A model of its own: its weights and KV cache are counted as that model's (sim/system/memory_fit).
  bool is_attached_head() const override { return false; }
};

const DraftBuilderRegistration standalone_draft_registration("standalone", std::make_unique<StandaloneDraft>());

}  // namespace
}  // namespace models
