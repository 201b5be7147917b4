#pragma once
// Hardware-aware tree choice (beyond paper 000): the draft time grows with the tree's depth
// (one draft pass per level, over that level's width) while T_v grows with x, so the paper's
// top-(x - 1) tree need not maximise P_eff = AAT / (T_v(x) + T_d(tree)). This searches over
// (x, maximum depth): for each depth bound D the tree is the top x - 1 prior-score nodes no
// deeper than D, and the answer is the (x, D) with the largest P_eff. The paper's x-only
// choice is the same search with no depth bound.
#include <map>
#include <string>
#include <vector>

#include "models/latency_engine.hpp"
#include "search/trees/path_counts.hpp"
#include "search/trees/tree_search.hpp"

namespace search {

// T_v(x) and T_d(tree) for one workload and context, cached (a draft pass's time depends only
// on its width, so T_d of a tree is the sum of its levels' pass times).
class TreeLatency {
 public:
  TreeLatency(const models::LatencyEngine& engine, const models::Workload& workload, long long context);
  double t_verify_s(int x);
  double t_draft_s(const std::vector<int>& widths_per_depth);
  long long context() const { return context_; }

 private:
  const models::LatencyEngine& engine_;
  const models::Workload& workload_;
  long long context_;
  std::map<int, double> verify_;
  std::map<int, double> pass_;
};

struct TreeChoice {
  int x = 1;
  int depth_bound = 0;  // 0: none (the paper's choice)
  int depth = 0;        // the tree's actual depth
  std::string shape;    // nodes per depth, "4 4 3 1"
  double aat = 1;
  double t_verify_s = 0;
  double t_draft_s = 0;
  double p_eff() const { return aat / (t_verify_s + t_draft_s); }  // tokens/s
};

struct HardwareAwareResult {
  TreeChoice autoregressive;          // x = 1
  std::vector<TreeChoice> x_only;     // prior-score tree per x = 2..x_max, no depth bound
  std::vector<TreeChoice> per_x_best; // per x, the depth bound with the largest P_eff
  TreeChoice best_x_only;             // the paper: best x, top-(x - 1) tree
  TreeChoice best;                    // best (x, depth bound)
  double gain() const { return best.p_eff() / best_x_only.p_eff() - 1; }  // fraction over x-only
};

// Rankings come from `train`; AAT is measured on `evaluate_on` (pass the training counts for
// in-sample figures, a validation trace for honest ones).
HardwareAwareResult hardware_aware_tree_search(const PathCounts& train, const PathCounts& evaluate_on,
                                               TreeLatency& latency, int x_max);

}  // namespace search
