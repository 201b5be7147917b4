#include "search/plan/plan_memory_headroom.hpp"

#include "models/drafts/draft_builder.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_costs.hpp"
#include "sim/system/system_costs.hpp"

namespace search {

MemoryHeadroom memory_headroom(const PlanSetup& s, const PlanCandidate& c) {
  const models::SystemSpec& system = s.system;
  // The system as deployed: its memory fit (sim::SystemCosts::memory, the one rule), the
  // candidate's draft model on the candidate's device.
  const sim::SystemCosts deployment(system, s.engine);
  const std::optional<int> draft_device =
      c.draft_model && c.draft_device >= 0 ? std::optional<int>(c.draft_device) : std::nullopt;
  sim::MemoryQuery q;
  q.batch = s.batch;
  q.step_tokens = std::max(1, c.step_tokens);
  q.kv_tokens = c.memory_kv_tokens > 0           ? c.memory_kv_tokens
                : system.memory.kv_tokens > 0 ? system.memory.kv_tokens
                                              : s.context + q.step_tokens;
  q.lm_head_tokens = c.memory_lm_head_tokens;
  q.parameter_rule = system.memory.parameter_rule;
  std::optional<models::AlgorithmSpec> head_algorithm;
  sim::DraftHead head;
  if (!c.draft_head.empty() && c.draft_device >= 0) {
    head_algorithm = s.configs->algorithm(c.draft_head);
    if (models::draft_builder(head_algorithm->draft.kind, head_algorithm->name).has_own_layer_shape())
      head_algorithm = search::eagle_head_for_target(*head_algorithm, s.target);
    // On its device; on a rank of the first stage's tensor-parallel group, 1/tp on each rank, as
    // the EAGLE dispatcher runs and checks it (sim::DraftHead).
    head.algorithm = &*head_algorithm;
    head.device = c.draft_device;
    head.shard_with_first_stage = true;
  }
  const auto devices = deployment.memory(s.target, c.draft_model ? &*c.draft_model : nullptr, q, draft_device, head);
  MemoryHeadroom h;
  for (const auto& d : devices) {
    if (d.capacity_bytes <= 0) continue;
    const double free = d.capacity_bytes - d.need.total();
    if (!h.checked || free < h.min_free_bytes) {
      h.min_free_bytes = free;
      h.device = d.device;
    }
    h.checked = true;
  }
  return h;
}

}  // namespace search
