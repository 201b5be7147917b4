#pragma once
// What a simulated serving run gave its requests (serving_simulation.hpp), as `serve` reports it
// and as `plan --request-rate` checks a candidate against the rate: latency percentiles (nearest
// rank over the finished requests), throughput, goodput under SLO targets, Little's law on the
// simulated queue, and whether the queue kept growing (an overloaded run, whose percentiles
// depend on its length rather than on the rate).
#include <string>

#include "search/scenarios/serving/serving_simulation.hpp"

namespace search::serving {

// A run is overloaded when the requests arriving in the last quarter of its window wait
// kOverloadGrowth times longer for their first token than those of the first quarter, and over
// kOverloadMinTtftS: the queue grows instead of settling.
constexpr double kOverloadShare = 0.25, kOverloadGrowth = 5, kOverloadMinTtftS = 1;

struct ServingSummary {
  long long requests = 0, finished = 0, dropped = 0, slo_met = 0;
  // Seconds: time to first token, time per output token after the first (a request's decode
  // time over its output tokens after the first), end to end.
  double ttft_p50_s = 0, ttft_p90_s = 0, ttft_p99_s = 0;
  double tpot_p50_s = 0, tpot_p90_s = 0, tpot_p99_s = 0;
  double e2e_p50_s = 0, e2e_p99_s = 0;
  double span_s = 0;                // the run's length (its last step's end)
  double tokens_per_s = 0;          // output tokens of the finished requests over the span
  double goodput_per_s = 0;         // requests meeting both SLO targets a second
  double littles_law_ratio = 0;     // time-averaged requests in the system over rate x time in it
  bool overloaded = false;
  double early_ttft_s = 0, late_ttft_s = 0;  // median TTFT of the first and last quarters' arrivals
  // "ok", "N dropped (KV cache)" (or "(swap space full)" where swap preemption aborted them),
  // "overloaded: ..." or "no request finished".
  std::string status;
  bool ok() const { return status == "ok"; }
};

ServingSummary summarize_serving(const ServingRun& run, double ttft_slo_s, double tpot_slo_s);

}  // namespace search::serving
