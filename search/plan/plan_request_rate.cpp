#include "search/plan/plan_request_rate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "search/scenarios/serving/serving_simulation.hpp"
#include "search/scenarios/serving/serving_summary.hpp"

namespace search {

namespace {

// One batch a candidate was timed at: its time per token and its one-prompt prefill.
struct TimedBatch {
  int batch = 0;
  double tbt_s = 0, ttft_s = 0;
};

// The candidate's time per token at `batch`, linear between the batches it was timed at.
double tbt_at(const std::vector<TimedBatch>& timed, int batch) {
  if (batch <= timed.front().batch) return timed.front().tbt_s;
  for (std::size_t i = 1; i < timed.size(); ++i)
    if (batch <= timed[i].batch) {
      const auto& a = timed[i - 1];
      const auto& b = timed[i];
      return a.tbt_s + (b.tbt_s - a.tbt_s) * double(batch - a.batch) / double(b.batch - a.batch);
    }
  return timed.back().tbt_s;  // the scheduler never runs more than the largest
}

// The serving check (plan_request_rate.hpp): serve's simulator on the candidate's step times.
PlanCandidate::Served serve_at_rate(const RequestRate& rate, const std::vector<TimedBatch>& timed) {
  using namespace search::serving;
  ServingWorkload w;
  w.name = "plan";
  w.quantiles = {0, 1};
  w.prompt_tokens = {double(rate.prompt_tokens), double(rate.prompt_tokens)};
  w.output_tokens = {double(rate.output_tokens), double(rate.output_tokens)};
  ServingConfig c;
  c.rate_per_s = rate.per_s;
  c.max_requests = served_requests(rate);
  c.duration_s = double(c.max_requests) / rate.per_s;
  c.method = "none";  // one token a step at the candidate's mean time per token
  c.max_num_seqs = timed.back().batch;
  c.max_batched_tokens = std::max<long long>(c.max_batched_tokens, rate.prompt_tokens);
  // Room for every sequence the scheduler may run at its full length (plan's memory fit held at
  // the largest batch, for its context and step); the cache never preempts below the batch limit.
  const long long per_request = (rate.prompt_tokens + rate.output_tokens + c.block_tokens) / c.block_tokens * c.block_tokens;
  c.kv_capacity_tokens = per_request * c.max_num_seqs;
  c.seed = kServedSeed;
  ServingStepCosts costs;
  const double prefill_s = timed.front().ttft_s;
  costs.prefill_s = [prefill_s](int requests, long long) { return prefill_s * double(requests); };
  costs.decode_s = [&timed](int batch, int, long long, int) { return tbt_at(timed, batch); };
  const ServingRun run = simulate_serving(w, c, costs);
  // No SLO targets here: plan checks its own (--tbt-ms, --ttft-ms) on the rows.
  const ServingSummary s = summarize_serving(run, 0, 0);
  PlanCandidate::Served out;
  out.tbt_p50_s = s.tpot_p50_s, out.tbt_p90_s = s.tpot_p90_s, out.tbt_p99_s = s.tpot_p99_s;
  out.ttft_p50_s = s.ttft_p50_s, out.ttft_p90_s = s.ttft_p90_s, out.ttft_p99_s = s.ttft_p99_s;
  out.mean_batch = run.mean_decode_batch;
  out.max_batch = c.max_num_seqs;
  out.status = s.status;
  return out;
}

// The serving simulation's answer for one candidate (plan_request_rate.hpp): its requests at the
// rate under a scheduler whose limit is the largest batch the candidate was timed at; where its
// queue stays bounded and nothing is dropped, the candidate is planned at the batch the engine
// ran, the smallest timed batch at or above the simulation's mean decode batch (to the nearest
// sequence); else it misses the
// rate at its largest batch, with the simulation's reason.
PlanCandidate served_choice(const RequestRate& rate, const std::vector<TimedBatch>& timed,
                            const std::vector<PlanCandidate>& rows, const std::string& stopped) {
  const PlanCandidate::Served served = serve_at_rate(rate, timed);
  if (served.status == "ok") {
    // The mean in whole sequences (a rare overlap of two requests at a low rate is still batch 1).
    const double ran = std::max(1.0, std::round(served.mean_batch));
    std::size_t i = 0;
    while (i + 1 < timed.size() && double(timed[i].batch) < ran) ++i;
    PlanCandidate c = rows[i];
    c.served = served;
    return c;
  }
  PlanCandidate c = rows.back();
  c.served = served;
  c.status = fmt::format("misses the request rate in a serving simulation (batch up to {}{}): {}", served.max_batch,
                         stopped.empty() ? "" : "; larger: " + stopped, served.status);
  return c;
}

}  // namespace

long long served_requests(const RequestRate& rate) {
  const long long n = std::min(kServedRequests, kServedTokens / std::max(1, rate.output_tokens));
  return n >= kMinServedRequests ? n : 0;
}

double sustained_rate(const PlanCandidate& c, int batch, int output_tokens) {
  return double(batch) / (c.ttft_s + double(output_tokens) * c.tbt_s);
}

std::vector<PlanCandidate> plan_for_rate(const RequestRate& rate,
                                         const std::function<std::vector<PlanCandidate>(int)>& evaluate,
                                         const std::function<void(int)>& progress) {
  struct State {
    std::optional<PlanCandidate> met, best_unmet, first_seen;
    std::string stopped;  // the status that ended its search (not ok at a larger batch)
    std::vector<TimedBatch> timed;  // ok at these batches, from 1 up without a gap
    std::vector<PlanCandidate> rows;  // the candidate at each of `timed`'s batches
    bool timed_closed = false;      // not ok at some batch: the batches above are not its
    std::string closed_by;          // why the batch after its last timed one was not timed
  };
  std::vector<std::pair<std::string, std::string>> order;  // (scheme, placement) in first-seen order
  std::map<std::pair<std::string, std::string>, State> states;
  for (int b = 1; b <= kMaxRateBatch; b *= 2) {
    progress(b);
    std::map<std::pair<std::string, std::string>, bool> seen;
    bool any_timed = false;
    for (auto& c : evaluate(b)) {
      const auto key = std::make_pair(c.scheme, c.placement);
      seen[key] = true;
      auto it = states.find(key);
      if (it == states.end()) {
        // A row that appears only at a larger batch and is not timed there (a scheme that decodes
        // one sequence says so once, without its placements) adds nothing.
        if (b > 1 && !c.ok()) continue;
        it = states.emplace(key, State{}).first;
        order.push_back(key);
      }
      State& st = it->second;
      if (c.ok() && !st.timed_closed) {
        st.timed.push_back({b, c.tbt_s, c.ttft_s});
        st.rows.push_back(c);
        st.rows.back().batch = b;
        st.rows.back().sustained_per_s = sustained_rate(c, b, rate.output_tokens);
        any_timed = true;
      } else {
        if (!st.timed_closed && !st.timed.empty()) st.closed_by = c.status;
        st.timed_closed = true;
      }
      if (st.met || !st.stopped.empty()) continue;
      c.batch = b;
      if (!c.ok()) {
        if (!st.first_seen) st.first_seen = c;
        // Timed at a smaller batch: the search ends here; never timed: its status stands.
        if (st.best_unmet) st.stopped = c.status;
        continue;
      }
      c.sustained_per_s = sustained_rate(c, b, rate.output_tokens);
      if (c.sustained_per_s >= rate.per_s) st.met = c;
      else st.best_unmet = c;
    }
    for (auto& [key, st] : states) {
      if (!seen.count(key)) {
        if (!st.timed_closed && !st.timed.empty()) st.closed_by = fmt::format("not run at batch {}", b);
        st.timed_closed = true;
      }
      if (st.met || !st.stopped.empty() || !st.best_unmet) continue;
      if (!seen.count(key)) st.stopped = fmt::format("not run at batch {}", b);
    }
    // Past the batch that meets the rate while some candidate is still timed: the serving check
    // needs its step times at the batches a queue may reach.
    if (!any_timed) break;
  }
  std::vector<PlanCandidate> out;
  for (const auto& key : order) {
    State& st = states[key];
    if (!st.timed.empty() && served_requests(rate) > 0) {
      out.push_back(served_choice(rate, st.timed, st.rows, st.closed_by));
      continue;
    }
    // No serving check (too many tokens to simulate): Little's law alone.
    if (st.met) {
      out.push_back(*st.met);
    } else if (st.best_unmet) {
      PlanCandidate c = *st.best_unmet;
      c.status = fmt::format("misses the request rate: sustains {:.3g} requests/s at batch {}{}", c.sustained_per_s,
                             c.batch,
                             !st.stopped.empty() ? " (larger: " + st.stopped + ")" : " (the largest tried)");
      out.push_back(std::move(c));
    } else {
      out.push_back(*st.first_seen);
      continue;
    }
  }
  return out;
}

}  // namespace search
