#include "models/drafts/draft_builder.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <utility>

#include "models/config_error.hpp"
#include "models/graph_parts.hpp"
#include "models/registry.hpp"

namespace models {

namespace {

// Builders are never removed, so references handed out stay valid.
Registry<std::string, std::unique_ptr<const DraftBuilder>>& builders() {
  static Registry<std::string, std::unique_ptr<const DraftBuilder>> r("draft builders");
  return r;
}

}  // namespace

DraftBuilderRegistration::DraftBuilderRegistration(const std::string& kind,
                                                   std::unique_ptr<const DraftBuilder> builder) {
  builders().add(kind, std::move(builder));
}

const DraftBuilder& draft_builder(const std::string& kind, const std::string& what) {
  const auto* builder = builders().find(kind);
  if (!builder) {
    std::string known;
    for (const auto& name : builders().keys()) known += (known.empty() ? "" : ", ") + name;
    throw InputError(fmt::format("{}: draft kind '{}' has no builder (available: {})", what, kind,
                                 known.empty() ? "none" : known));
  }
  return **builder;
}

std::vector<std::string> draft_kinds() { return builders().keys(); }

double DraftBuilder::weight_bytes(const AlgorithmSpec& algorithm, const ModelSpec& target) const {
  return build_draft_pass_graph(algorithm, target, 1, 0, 1).total_weight_bytes();
}

StepGraph build_draft_pass_graph(const AlgorithmSpec& algorithm, const ModelSpec& target, int width,
                                 std::int64_t context, int batch) {
  graph_parts::check_shape(algorithm.name + " draft", width, context, batch);
  return draft_builder(algorithm.draft.kind, algorithm.name).pass_graph(algorithm, target, width, context, batch);
}

DraftSpec with_target_layer_shape(DraftSpec draft, const ModelSpec& target) {
  draft.hidden_size = target.hidden_size;
  draft.attention_heads = target.attention_heads;
  draft.kv_heads = target.kv_heads;
  draft.head_dim = target.head_dim;
  draft.intermediate_size = target.intermediate_size;  // the dense MLP (Llama 4: intermediate_size_mlp)
  return draft;
}

StepGraph draft_head_graph(const AlgorithmSpec& algorithm, const ModelSpec& target, int width,
                           std::int64_t context, int batch) {
  StepGraph g;
  g.label = fmt::format("draft {} for {} w={} L={} b={}", algorithm.name, target.name, width,
                        context, batch);
  g.tokens = width;
  g.batch = batch;
  g.context = context;
  g.layer_count = 1;
  return g;
}

}  // namespace models
