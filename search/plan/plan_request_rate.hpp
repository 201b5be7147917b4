#pragma once
// plan at a request rate instead of a batch: requests arrive at `per_s` a second and each decodes
// `output_tokens` tokens, batched continuously. Two answers per candidate (scheme and placement):
//  - the batch: a request holds a batch slot from its prefill to its last token, so by Little's
//    law a candidate that runs B sequences together sustains B / (TTFT + output_tokens x TBT)
//    requests a second at that batch; plan keeps the smallest batch of 1, 2, 4, ... that sustains
//    the rate (the lowest TBT that does; the row's numbers and its `reproduce` command are that
//    batch's), and lists the candidate as missing the rate with the most it sustained where none
//    does. That bound leaves out the prefills of arriving requests and the queue's variance.
//  - the check: a serving simulation (search/scenarios/serving: serve's scheduler, Poisson
//    arrivals, KV cache and percentiles) of kServedRequests requests of `prompt_tokens` and
//    `output_tokens` tokens at the rate, its decode steps timed from the candidate's own TBT at
//    every batch it was timed at (linear between them; the largest is the scheduler's batch
//    limit), its prefills from its TTFT. A candidate whose simulated queue keeps growing, or that
//    drops requests, misses the rate although Little's law would have it sustain it; the served_*
//    columns give its percentiles. Speculation enters as the candidate's mean time per token at
//    each batch (no per-request draws: that is `serve`'s own, for the methods it simulates).
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
// and `served` set (a candidate the serving check finds overloaded has its status say so).
// `progress(b)` is called before each batch; batches go on past the one that meets the rate, up
// to kMaxRateBatch or while some candidate is timed, for the serving check's step times.
std::vector<PlanCandidate> plan_for_rate(const RequestRate& rate,
                                         const std::function<std::vector<PlanCandidate>(int)>& evaluate,
                                         const std::function<void(int)>& progress);

}  // namespace search
