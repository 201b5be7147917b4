#pragma once
// plan at a request rate instead of a batch: requests arrive at `per_s` a second and each decodes
// `output_tokens` tokens, batched continuously (an arriving request prefills on its own, its TTFT
// the one-prompt prefill). A request holds a batch slot from its prefill to its last token, so by
// Little's law a candidate that runs B sequences together sustains B / (TTFT + output_tokens x
// TBT) requests a second at that batch; plan keeps, per candidate (scheme and placement), the
// smallest batch of 1, 2, 4, ... that sustains the rate (the lowest TBT that does), and lists the
// candidate as missing the rate with the most it sustained where none does (its largest feasible
// batch, or batch 1 for the schemes that decode one sequence). The prefill of arriving requests
// is not charged against the decode steps (a disaggregated or chunked prefill would hide most of
// it): the rate a candidate sustains is an upper bound.
#include <functional>
#include <vector>

#include "experiments/plan/plan_scheme.hpp"

namespace experiments {

struct RequestRate {
  double per_s = 0;
  int output_tokens = 0;
};

// Batches tried, doubling from 1.
constexpr int kMaxRateBatch = 256;

// Requests a second candidate `c` (timed, at batch `batch`) sustains.
double sustained_rate(const PlanCandidate& c, int batch, int output_tokens);

// `evaluate(b)` gives every candidate at batch b (plan's candidates, TTFT included); the result
// holds each candidate once, at the batch that meets the rate, with `batch` and
// `sustained_per_s` set. `progress(b)` is called before each batch.
std::vector<PlanCandidate> plan_for_rate(const RequestRate& rate,
                                         const std::function<std::vector<PlanCandidate>(int)>& evaluate,
                                         const std::function<void(int)>& progress);

}  // namespace experiments
