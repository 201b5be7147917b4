#pragma once
// plan at a request rate instead of a batch: requests arrive at `per_s` a second and each decodes
// `output_tokens` tokens, batched continuously. Each candidate (scheme and placement) is timed at
// every batch 1, 2, 4, ... it runs, then:
//  - the batch comes from a serving simulation (search/scenarios/serving: serve's scheduler,
//    Poisson arrivals, KV cache and percentiles) of kServedRequests requests of `prompt_tokens` and
//    `output_tokens` tokens at the rate, its decode steps timed from the candidate's own TBT at
//    every batch it was timed at (linear between them; the largest is the scheduler's limit), its
//    prefills from its TTFT: where the simulated queue stays bounded and no request is dropped,
//    the candidate is planned at the batch the engine ran, the smallest timed batch at or above
//    the simulation's mean decode batch, to the nearest sequence (the row's numbers and its `reproduce` command are that
//    batch's; the served_* columns give what its requests saw); else it misses the rate, with the
//    simulation's reason, at its largest batch. Speculation enters as the
//    candidate's mean time per token at each batch (no per-request draws: those are `serve`'s own,
//    for the methods it simulates);
//  - Little's law stays beside it as a bound: a request holds a batch slot from its prefill to its
//    last token, so a candidate that runs B sequences together sustains at most about
//    B / (TTFT + output_tokens x TBT) requests a second (requests_per_s); it leaves out the
//    arriving requests' prefills and the queue's variance, and it alone chooses the batch where the
//    rate's tokens are too many to simulate (served_requests() == 0, and the footer says so).
#include <cstdint>
#include <functional>
#include <vector>

#include "search/plan/plan_scheme.hpp"

namespace search {

struct RequestRate {
  double per_s = 0;
  int output_tokens = 0;
  long long prompt_tokens = 1024;  // the serving check's prompts (the mix's mean context)
};

// Requests each serving check simulates (Poisson arrivals at the rate; seed kServedSeed): 1000,
// fewer where their output tokens would pass kServedTokens (each a step of the simulation), none
// (no check, and the footer says so) below kMinServedRequests.
constexpr long long kServedRequests = 1000, kMinServedRequests = 100, kServedTokens = 1LL << 24;
constexpr std::uint64_t kServedSeed = 1;
long long served_requests(const RequestRate& rate);

// Batches tried, doubling from 1.
constexpr int kMaxRateBatch = 256;

// Requests a second candidate `c` (timed, at batch `batch`) sustains.
double sustained_rate(const PlanCandidate& c, int batch, int output_tokens);

// `evaluate(b)` gives every candidate at batch b (plan's candidates, TTFT included); the result
// holds each candidate once, at the batch that meets the rate, with `batch`, `sustained_per_s`
// and `served` set (a candidate no batch of which keeps up has its status say why).
// `progress(b)` is called before each batch; batches go on past the one that meets the rate, up
// to kMaxRateBatch or while some candidate is timed, for the serving check's step times.
std::vector<PlanCandidate> plan_for_rate(const RequestRate& rate,
                                         const std::function<std::vector<PlanCandidate>(int)>& evaluate,
                                         const std::function<void(int)>& progress);

}  // namespace search
