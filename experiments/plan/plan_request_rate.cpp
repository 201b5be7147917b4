#include "experiments/plan/plan_request_rate.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace experiments {

double sustained_rate(const PlanCandidate& c, int batch, int output_tokens) {
  return double(batch) / (c.ttft_s + double(output_tokens) * c.tbt_s);
}

std::vector<PlanCandidate> plan_for_rate(const RequestRate& rate,
                                         const std::function<std::vector<PlanCandidate>(int)>& evaluate,
                                         const std::function<void(int)>& progress) {
  struct State {
    std::optional<PlanCandidate> met, best_unmet, first_seen;
    std::string stopped;  // the status that ended its search (not ok at a larger batch)
  };
  std::vector<std::pair<std::string, std::string>> order;  // (scheme, placement) in first-seen order
  std::map<std::pair<std::string, std::string>, State> states;
  for (int b = 1; b <= kMaxRateBatch; b *= 2) {
    progress(b);
    std::map<std::pair<std::string, std::string>, bool> seen;
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
    bool open = false;
    for (auto& [key, st] : states) {
      if (st.met || !st.stopped.empty() || !st.best_unmet) continue;
      if (!seen.count(key)) st.stopped = fmt::format("not run at batch {}", b);
      else open = true;
    }
    if (!open) break;  // every candidate met the rate, ran out of batches or was never timed
  }
  std::vector<PlanCandidate> out;
  for (const auto& key : order) {
    State& st = states[key];
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
    }
  }
  return out;
}

}  // namespace experiments
