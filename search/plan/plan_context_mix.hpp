#pragma once
// plan over a context mix: one candidate per (scheme, placement) whose time between tokens (and
// its band, and TTFT) is the mean over the contexts weighted by the share of tokens decoded at
// each (a token's expected wait), its memory headroom the least over them; timed only where it
// is timed at every context, with the parameters of each context where they differ.
#include <vector>

#include "search/plan/plan_scheme.hpp"

namespace search {

// Every context's shares are normalised; each candidate's `per_context` holds its times at every
// context (one entry for a single context).
std::vector<PlanCandidate> mix_contexts(const std::vector<std::vector<PlanCandidate>>& per_context,
                                        const std::vector<long long>& contexts, const std::vector<double>& weights);

// The value at percentile `p` (in (0, 100]) of a candidate's per-context times, each context
// counted by its share: the least value v such that contexts taking at most v make up at least
// p % of the mix. `member` picks the time (&ContextTimes::tbt_s or ::ttft_s); `context` is set to
// the context it comes from.
double mix_percentile(const std::vector<PlanCandidate::ContextTimes>& times, double PlanCandidate::ContextTimes::*member,
                      double p, long long& context);

}  // namespace search
