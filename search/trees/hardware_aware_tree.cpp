#include "search/trees/hardware_aware_tree.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"

namespace search {

TreeLatency::TreeLatency(const models::LatencyEngine& engine, const models::Workload& workload, long long context)
    : engine_(engine), workload_(workload), context_(context) {}

double TreeLatency::t_verify_s(int x) {
  auto it = verify_.find(x);
  if (it == verify_.end()) it = verify_.emplace(x, models::t_verify(engine_, workload_, x, context_)).first;
  return it->second;
}

double TreeLatency::t_draft_s(const std::vector<int>& widths_per_depth) {
  double total = 0;
  for (int w : widths_per_depth) {
    auto it = pass_.find(w);
    if (it == pass_.end()) it = pass_.emplace(w, models::t_draft_passes(engine_, workload_, {w}, context_)).first;
    total += it->second;
  }
  return total;
}

namespace {

std::string shape_of(const std::vector<int>& widths) {
  std::string s;
  for (int w : widths) s += (s.empty() ? "" : " ") + std::to_string(w);
  return s;
}

// Choices for x = 2..x_max from one ranking (its prefixes), widths kept incrementally.
std::vector<TreeChoice> choices_of(const NodeRanking& ranking, const PathCounts& evaluate_on,
                                   TreeLatency& latency, int x_max, int depth_bound) {
  const auto aat = nested_aat(ranking, evaluate_on);
  std::vector<TreeChoice> out;
  std::vector<int> widths;
  for (int x = 2; x <= x_max; ++x) {
    const auto depth = ranking.paths[std::size_t(x - 2)].size();
    if (widths.size() < depth) widths.resize(depth, 0);
    ++widths[depth - 1];
    TreeChoice c;
    c.x = x;
    c.depth_bound = depth_bound;
    c.depth = int(widths.size());
    c.shape = shape_of(widths);
    c.aat = aat[std::size_t(x - 1)];
    c.t_verify_s = latency.t_verify_s(x);
    c.t_draft_s = latency.t_draft_s(widths);
    out.push_back(c);
  }
  return out;
}

}  // namespace

HardwareAwareResult hardware_aware_tree_search(const PathCounts& train, const PathCounts& evaluate_on,
                                               TreeLatency& latency, int x_max) {
  if (x_max < 2)
    models::throw_input_error("tree search", "x_max", "a verification length >= 2", fmt::format("{}", x_max));
  HardwareAwareResult r;
  r.autoregressive.t_verify_s = latency.t_verify_s(1);
  const PriorScoreOrder order(train);
  const NodeRanking unbounded = order.ranking(x_max - 1);
  r.x_only = choices_of(unbounded, evaluate_on, latency, x_max, 0);
  r.per_x_best = r.x_only;
  r.best_x_only = r.autoregressive;
  for (const auto& c : r.x_only)
    if (c.p_eff() > r.best_x_only.p_eff()) r.best_x_only = c;
  r.best = r.best_x_only;
  // Deeper bounds than the unbounded ranking reaches give the same trees.
  const int deepest = unbounded.depths().back();
  for (int bound = 1; bound < deepest; ++bound) {
    const auto choices = choices_of(order.ranking(x_max - 1, bound), evaluate_on, latency, x_max, bound);
    for (std::size_t i = 0; i < choices.size(); ++i) {
      if (choices[i].p_eff() > r.per_x_best[i].p_eff()) r.per_x_best[i] = choices[i];
      if (choices[i].p_eff() > r.best.p_eff()) r.best = choices[i];
    }
  }
  return r;
}

}  // namespace search
