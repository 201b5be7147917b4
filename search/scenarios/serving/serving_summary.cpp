#include "search/scenarios/serving/serving_summary.hpp"

#include <fmt/format.h>

#include <vector>

namespace search::serving {

ServingSummary summarize_serving(const ServingRun& run, double ttft_slo_s, double tpot_slo_s) {
  ServingSummary s;
  long long aborted = 0;
  std::vector<double> ttft, tpot, e2e;
  double e2e_sum = 0;
  for (const auto& q : run.requests) {
    if (!q.finished()) {
      ++s.dropped;
      aborted += q.dropped.rfind("aborted", 0) == 0 ? 1 : 0;  // swap preemption with the swap space full
      continue;
    }
    ++s.finished;
    s.tokens_per_s += double(q.output_tokens);  // divided by the span below
    ttft.push_back(q.first_token_s - q.arrival_s);
    const double per_token = q.output_tokens > 1 ? (q.finish_s - q.first_token_s) / double(q.output_tokens - 1) : 0.0;
    tpot.push_back(per_token);
    e2e.push_back(q.finish_s - q.arrival_s);
    e2e_sum += q.finish_s - q.arrival_s;
    s.slo_met += (q.first_token_s - q.arrival_s <= ttft_slo_s && per_token <= tpot_slo_s) ? 1 : 0;
  }
  s.requests = (long long)run.requests.size();
  s.span_s = run.end_s > 0 ? run.end_s : 1;
  s.tokens_per_s /= s.span_s;
  s.goodput_per_s = double(s.slo_met) / s.span_s;
  s.ttft_p50_s = percentile(ttft, 50), s.ttft_p90_s = percentile(ttft, 90), s.ttft_p99_s = percentile(ttft, 99);
  s.tpot_p50_s = percentile(tpot, 50), s.tpot_p90_s = percentile(tpot, 90), s.tpot_p99_s = percentile(tpot, 99);
  s.e2e_p50_s = percentile(e2e, 50), s.e2e_p99_s = percentile(e2e, 99);
  // Little's law on the simulated queue: time-averaged requests in the system against the
  // arrival rate realised over the run times the mean time in the system.
  s.littles_law_ratio = s.finished > 0 && s.dropped == 0
                            ? run.mean_in_system / (double(s.requests) / s.span_s * e2e_sum / double(s.finished))
                            : 0;
  // Overloaded: the last arrivals wait far longer for their first token than the first ones did.
  std::vector<double> early, late;
  const double window_s = run.requests.empty() ? 0 : run.requests.back().arrival_s;
  for (const auto& q : run.requests)
    if (q.finished()) {
      if (q.arrival_s < kOverloadShare * window_s) early.push_back(q.first_token_s - q.arrival_s);
      if (q.arrival_s >= (1 - kOverloadShare) * window_s) late.push_back(q.first_token_s - q.arrival_s);
    }
  s.early_ttft_s = percentile(early, 50), s.late_ttft_s = percentile(late, 50);
  // Every request at once (a closed batch) has no early and late arrivals: no queue to grow.
  s.overloaded = window_s > 0 && s.late_ttft_s > kOverloadMinTtftS && s.late_ttft_s > kOverloadGrowth * s.early_ttft_s;
  s.status = s.finished == 0 ? "no request finished"
             : s.dropped > 0 && aborted == s.dropped ? fmt::format("{} dropped (swap space full)", s.dropped)
             : s.dropped > 0 && aborted > 0 ? fmt::format("{} dropped (KV cache; {} with the swap space full)", s.dropped, aborted)
             : s.dropped > 0 ? fmt::format("{} dropped (KV cache)", s.dropped)
             : s.overloaded  ? fmt::format("overloaded: median TTFT {:.3g} s for the last arrivals, {:.3g} s for the first",
                                           s.late_ttft_s, s.early_ttft_s)
                             : "ok";
  return s;
}

}  // namespace search::serving
