#include "search/plan/plan_first_token.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "models/config_error.hpp"
#include "models/drafts/draft_builder.hpp"
#include "models/operator_graph.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_costs.hpp"
#include "sim/system/system_step.hpp"

namespace search {

namespace {

int prompt_tokens(long long context) {
  if (context < 1 || context > std::numeric_limits<int>::max())
    throw models::InputError(fmt::format("plan: a prompt of {} tokens cannot be prefilled in one step", context));
  return int(context);
}

}  // namespace

double FirstTokenCosts::target_prefill_s() {
  if (target_s_) return *target_s_;
  sim::SystemQuery q;
  q.target = s_.target;
  q.x = prompt_tokens(s_.context);
  q.context = 0;
  q.batch = prompts_;
  q.prefill = true;
  q.task_names = false;
  target_s_ = sim::simulate_system_step(costs_, q).step_s;
  return *target_s_;
}

double FirstTokenCosts::draft_prefill_s(const PlanCandidate& c) {
  const int prompt = prompt_tokens(s_.context);
  if (c.draft_model) {
    // A draft model's forward over the prompt (no LM head: only the last position's logits).
    return costs_.forward_s(c.draft_device, costs_.add_model(*c.draft_model),
                            {prompt, 0, prompts_, models::MaskKind::causal, false});
  }
  if (c.draft_head.empty()) return 0;
  // A draft head's pass over the prompt: its builder's graph through the cost layer's memo.
  models::AlgorithmSpec a = s_.configs->algorithm(c.draft_head);
  const auto& builder = models::draft_builder(a.draft.kind, a.name);
  if (builder.has_own_layer_shape()) a = search::eagle_head_for_target(a, s_.target);
  return costs_.step_s(c.draft_device, builder.pass_graph(a, s_.target, prompt, 0, prompts_));
}

double FirstTokenCosts::ttft_s(const PlanCandidate& c) {
  if (c.ttft_s > 0) return c.ttft_s;
  const double target = target_prefill_s();
  if (c.draft_device < 0 || (!c.draft_model && c.draft_head.empty())) return target;
  const double draft = draft_prefill_s(c);
  bool on_target = false;
  for (const auto& st : s_.system.stages)
    on_target = on_target || std::find(st.devices.begin(), st.devices.end(), c.draft_device) != st.devices.end();
  return on_target ? target + draft : std::max(target, draft);
}

}  // namespace search
