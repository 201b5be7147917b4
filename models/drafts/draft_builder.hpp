#pragma once
// Self-registering draft builders (Ramulator 2 style, as models/engine_registry.hpp): each kind
// of SD draft (`draft.type` in configs/algorithms/*.yaml: longspec, eagle3, standalone) reads its
// own YAML keys and builds the operator graph of one of its draft passes, in its own file under
// models/drafts/ with one static DraftBuilderRegistration. A new draft kind is one file plus
// that one line; the models library is linked whole-archive so the registration survives.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/algorithm_spec.hpp"
#include "models/model_spec.hpp"
#include "models/operator_graph.hpp"
#include "models/yaml_reader.hpp"

namespace models {

class DraftBuilder {
 public:
  virtual ~DraftBuilder() = default;
  // Reads this kind's keys of an algorithm's `draft` block into `spec` (spec.kind is set).
  virtual void load(const YamlReader& draft, DraftSpec& spec) const = 0;
  // One draft pass over `width` tokens per sequence at context L, drafting for `target`.
  // Shapes are already checked (width >= 1, context >= 0, batch >= 1).
  virtual StepGraph pass_graph(const AlgorithmSpec& algorithm, const ModelSpec& target, int width,
                               std::int64_t context, int batch) const = 0;
};

struct DraftBuilderRegistration {
  DraftBuilderRegistration(const std::string& kind, std::unique_ptr<const DraftBuilder> builder);
};

// The builder of draft kind `kind`; InputError naming `what` (the file and key asking) and the
// registered kinds when there is none.
const DraftBuilder& draft_builder(const std::string& kind, const std::string& what);
// Registered draft kinds (sorted).
std::vector<std::string> draft_kinds();

// For builders of one-layer draft heads (LongSpec, EAGLE): a pass graph of one layer with its
// label and shape set and no ops yet.
StepGraph draft_head_graph(const AlgorithmSpec& algorithm, const ModelSpec& target, int width,
                           std::int64_t context, int batch);

}  // namespace models
