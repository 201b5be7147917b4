#pragma once
// plan's time to first token of a candidate, where its scenario does not time the prefill
// itself: the prompt (`context` tokens of each of `batch` sequences) through the target's
// placement on the system timeline (sim::simulate_system_step with SystemQuery::prefill: causal
// attention, no LM head), and the draft's own prefill over the prompt (a draft model's forward,
// or a draft head's pass) on its device. A draft on a device the target does not use prefills in
// parallel with the target (both get the prompt); one on a target device runs after it. The
// first token then comes from the target's last position: no extra step is added. Forwards are
// costed by the system's cost layer (sim/system/system_costs.hpp), as the scenarios' are.
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "search/plan/plan_scheme.hpp"
#include "sim/system/system_costs.hpp"

namespace search {

class FirstTokenCosts {
 public:
  // `prompts`: the prompts prefilled together (a static batch's: the batch; continuous batching,
  // where each arriving request prefills on its own: 1).
  FirstTokenCosts(const PlanSetup& setup, int prompts)
      : s_(setup), prompts_(prompts), costs_(setup.system, setup.engine) {}
  // Seconds to the first token of `c` (its scenario's own figure when it has one). Memoised: the
  // target's prefill once, each draft's once per device.
  double ttft_s(const PlanCandidate& c);
  // The target's prefill through the system's placement alone.
  double target_prefill_s();

 private:
  double draft_prefill_s(const PlanCandidate& c);

  const PlanSetup& s_;
  int prompts_ = 1;
  // The system's cost layer: its device engines, and the draft models' forwards memoised there.
  sim::SystemCosts costs_;
  std::optional<double> target_s_;
};

}  // namespace search
