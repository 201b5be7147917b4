#include "search/scenarios/serving/eagle_tree_recovery.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "models/config_error.hpp"

namespace search::serving {

namespace {

double survival_at(const std::vector<double>& survival, int j) {
  if (j <= 0) return 1;
  return std::size_t(j) <= survival.size() ? survival[std::size_t(j - 1)] : 0.0;
}

// Bisection steps of solve_tree_recovery: the interval [0, 1] halved to below 1e-12.
constexpr int kBisections = 42;

}  // namespace

double renewal_tree_kept(const std::vector<double>& survival, int depth, double recovery) {
  if (depth < 0) throw models::InputError(fmt::format("tree depth must be >= 0, got {}", depth));
  // accepted[d]: expected accepted tokens with d levels of the tree left. A chain draw accepts a
  // (probability S(a) - S(a + 1)); below the depth its miss is recovered with `recovery`, which
  // accepts that token and starts a fresh draw with d - a - 1 levels left.
  std::vector<double> accepted(std::size_t(depth) + 1, 0.0);
  for (int d = 1; d <= depth; ++d) {
    double v = survival_at(survival, d) * d;
    for (int a = 0; a < d; ++a) {
      const double p = survival_at(survival, a) - survival_at(survival, a + 1);
      v += p * (a + recovery * (1 + accepted[std::size_t(d - a - 1)]));
    }
    accepted[std::size_t(d)] = v;
  }
  return 1 + accepted[std::size_t(depth)];
}

double solve_tree_recovery(const std::vector<double>& survival, int depth, double kept) {
  double lo = 0, hi = 1;
  if (renewal_tree_kept(survival, depth, lo) >= kept) return 0;
  if (renewal_tree_kept(survival, depth, hi) <= kept) return 1;
  for (int i = 0; i < kBisections; ++i) {
    const double mid = 0.5 * (lo + hi);
    (renewal_tree_kept(survival, depth, mid) < kept ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

std::vector<TreeCalibration> calibrate_tree_recoveries(const AcceptanceData& data,
                                                       const models::AlgorithmSpec& tree_algorithm,
                                                       const std::string& chain_algorithm, const std::string& target,
                                                       const std::string& task, int max_draft_nodes) {
  if (tree_algorithm.tree_kind != models::TreeKind::depth_topk)
    throw models::InputError(fmt::format("{}: a serving tree needs an EAGLE depth/top-k tree table (tree.kind: "
                                         "depth_topk)", tree_algorithm.source_file));
  if (max_draft_nodes < 1)
    throw models::InputError(fmt::format("tree of {} draft nodes: must be >= 1", max_draft_nodes));
  // The depth of an EAGLE tree of n nodes: its first pass and `depth` expansions make depth + 1
  // levels, and n nodes fill at most n of them.
  auto depth_of = [&](int nodes) {
    const auto it = tree_algorithm.depth_topk_by_x.find(nodes + 1);
    if (it == tree_algorithm.depth_topk_by_x.end())
      throw models::InputError(fmt::format("{}: no tree of {} draft nodes (x = {}; trees cover x = 2..{})",
                                           tree_algorithm.source_file, nodes, nodes + 1, tree_algorithm.max_x));
    return std::min(it->second.first + 1, nodes);
  };
  // The first row of each (context, nodes) in the file's order (a tree-shape study may repeat a point).
  auto curves = [&](const std::string& algorithm) {
    AatQuery q;
    q.algorithm = algorithm;
    q.target_model = target;
    q.task = task;
    std::map<long long, std::map<int, double>> by_context;
    for (const auto& m : data.select(q)) by_context[m.context].emplace(m.draft_nodes, m.aat);
    return by_context;
  };
  depth_of(max_draft_nodes);  // the size asked for first (its error names it); a gap below it is refused at the gap
  // Read once, calibrated at every size.
  const auto chains = curves(chain_algorithm), trees = curves(tree_algorithm.name);
  std::vector<TreeCalibration> all;
  for (int draft_nodes = 1; draft_nodes <= max_draft_nodes; ++draft_nodes) {
    TreeCalibration& out = all.emplace_back();
    out.step.depth = depth_of(draft_nodes);
    std::vector<double> recoveries;
    for (const auto& [context, tree] : trees) {
      const auto chain = chains.find(context);
      if (chain == chains.end()) continue;
      // The measured tree nearest below the one asked for.
      auto at = tree.upper_bound(draft_nodes);
      if (at == tree.begin()) continue;
      --at;
      const int nodes = at->first;
      const int depth = depth_of(nodes);
      // The chain's accepted run: P(A >= j) = AAT(j nodes) - AAT(j - 1 nodes), made non-increasing.
      std::vector<double> survival;
      double previous_aat = 1, previous_s = 1;
      bool complete = true;
      for (int j = 1; j <= depth; ++j) {
        const auto c = chain->second.find(j);
        if (c == chain->second.end()) {
          complete = false;
          break;
        }
        const double s = std::clamp(c->second - previous_aat, 0.0, previous_s);
        survival.push_back(s);
        previous_aat = c->second;
        previous_s = s;
      }
      if (!complete) continue;
      recoveries.push_back(solve_tree_recovery(survival, depth, at->second));
      out.contexts.push_back(context);
      out.measured_nodes = std::max(out.measured_nodes, nodes);
    }
    if (recoveries.empty())
      throw models::InputError(fmt::format(
          "{}: no context with measured AAT of both {} (up to {} draft nodes) and {} for {} on {}: a serving tree "
          "takes its recovery from them",
          data.path(), tree_algorithm.name, draft_nodes, chain_algorithm, target, task));
    std::vector<double> sorted = recoveries;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    out.step.recovery = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    out.recovery_low = sorted.front();
    out.recovery_high = sorted.back();
    out.source = fmt::format("{} and {} AAT for {} on {} at contexts {} ({})", tree_algorithm.name, chain_algorithm,
                             target, task, fmt::join(out.contexts, ", "), data.path());
  }
  return all;
}

TreeCalibration calibrate_tree_recovery(const AcceptanceData& data, const models::AlgorithmSpec& tree_algorithm,
                                        const std::string& chain_algorithm, const std::string& target,
                                        const std::string& task, int draft_nodes) {
  return calibrate_tree_recoveries(data, tree_algorithm, chain_algorithm, target, task, draft_nodes).back();
}

}  // namespace search::serving
