#pragma once
// plan over a context mix: one candidate per (scheme, placement) whose time between tokens (and
// its band, and TTFT) is the mean over the contexts weighted by the share of tokens decoded at
// each (a token's expected wait), its memory headroom the least over them; timed only where it
// is timed at every context, with the parameters of each context where they differ.
#include <vector>

#include "experiments/plan/plan_scheme.hpp"

namespace experiments {

std::vector<PlanCandidate> mix_contexts(const std::vector<std::vector<PlanCandidate>>& per_context,
                                        const std::vector<long long>& contexts, const std::vector<double>& weights);

}  // namespace experiments
