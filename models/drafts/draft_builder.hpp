#pragma once
// Self-registering draft builders (Ramulator 2 style, as models/engine_registry.hpp): each kind
// of SD draft (`draft.type` in configs/algorithms/*.yaml: longspec, eagle3, standalone) reads its
// own YAML keys and builds the operator graph of one of its draft passes, in its own file under
// models/drafts/ with one static DraftBuilderRegistration. A new draft kind is one file plus
// that one line; the models library is linked whole-archive so the registration survives.
// Callers ask the builder what a draft kind implies (is it a head attached to the target, does
// it carry a layer shape of its own, how large is its KV cache), never the kind's name.
//
// Layering: builders sit above models/operator_graph.hpp (they build StepGraphs from its
// graph_parts); the operator graph knows nothing of drafts.
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
  // One draft pass over `width` tokens per sequence at context L, drafting for `target`. A head's
  // pass is marked as such (StepGraph::draft_pass: the stack charges its proposer's host work per
  // pass, as a serving engine runs a head in its proposer's loop); a standalone draft model's
  // forward is a model step of its own. Shapes are already checked (width >= 1, context >= 0,
  // batch >= 1).
  StepGraph pass_graph(const AlgorithmSpec& algorithm, const ModelSpec& target, int width, std::int64_t context,
                       int batch) const {
    StepGraph g = build_pass_graph(algorithm, target, width, context, batch);
    g.draft_pass = is_attached_head();
    return g;
  }

  // Whether the draft is a head attached to its target (it reads the target's hidden states or
  // KV cache and sits in the target's memory) rather than a model of its own, whose memory and
  // placement are that model's (a standalone draft).
  virtual bool is_attached_head() const { return true; }
  // Whether the head carries a decoder-layer shape of its own (hidden size, heads, FFN) that must
  // equal its target's to read the target's features (EAGLE): such a head is reshaped to each
  // target (reshaped_for) and is what the EAGLE dispatcher and system steps cost (paper 004).
  virtual bool has_own_layer_shape() const { return false; }
  // `draft` with its layer shape taken from `target`; unchanged unless has_own_layer_shape().
  virtual DraftSpec reshaped_for(const DraftSpec& draft, const ModelSpec&) const { return draft; }
  // Whether the draft proposes token trees (several candidates per level, as EAGLE's head and a
  // draft model's top-k do) or only a chain of its top-1 tokens.
  virtual bool drafts_trees() const { return true; }
  // Bytes of the head's weights (one pass's weight bytes: every weight is streamed once per pass).
  virtual double weight_bytes(const AlgorithmSpec& algorithm, const ModelSpec& target) const;
  // Bytes of the head's own KV cache for `batch` sequences of `kv_tokens` tokens, its KV heads
  // split over `tp` tensor-parallel ranks (>= 1); 0 for a draft that keeps none.
  virtual double kv_cache_bytes(const DraftSpec&, const ModelSpec&, int /*batch*/, long long /*kv_tokens*/,
                                int /*tp*/) const {
    return 0;
  }

 protected:
  // The kind's pass graph (pass_graph marks it a draft pass).
  virtual StepGraph build_pass_graph(const AlgorithmSpec& algorithm, const ModelSpec& target, int width,
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

// One draft pass over `width` tokens for `algorithm` drafting for `target` at context L, built by
// the builder of the algorithm's draft kind (InputError for a bad shape or an unknown kind).
StepGraph build_draft_pass_graph(const AlgorithmSpec& algorithm, const ModelSpec& target, int width,
                                 std::int64_t context, int batch = 1);

// `draft` with its decoder layer's shape (hidden size, heads, KV heads, head size, dense MLP width)
// taken from `target`: reshaped_for of the heads that read the target's features (EAGLE, MTP).
DraftSpec with_target_layer_shape(DraftSpec draft, const ModelSpec& target);

// For builders of one-layer draft heads (LongSpec, EAGLE): a pass graph of one layer with its
// label and shape set and no ops yet.
StepGraph draft_head_graph(const AlgorithmSpec& algorithm, const ModelSpec& target, int width,
                           std::int64_t context, int batch);

}  // namespace models
