#pragma once
// EAGLE token trees in the serving simulator. A serving preset measures what a *chain* yields at
// each output position (its accepted run under an unbounded draft, serving_workload.hpp); a tree
// of the same head keeps going where the chain misses when its other branches hold the target's
// token. Modelled as a renewal: at a chain miss within the tree's depth the tree holds the
// target's token with probability `recovery`, and drafting goes on below it as a fresh chain
// would from that position (the preset's chain, moved on past the recovered token), up to the
// tree's depth.
//
// The recovery per tree size is calibrated on measured acceptance of the same head as a chain
// and as a tree on the same text (paper 000's EAGLE-3 tables for Llama-3.1-8B-Instruct,
// configs/acceptance/aat_measurements.csv): the chain's AAT curve gives the distribution of its
// accepted run, and `recovery` is solved so that the renewal keeps the tree's measured AAT.
#include <string>
#include <vector>

#include "models/algorithm_spec.hpp"
#include "search/acceptance/acceptance_data.hpp"

namespace search::serving {

// A speculative step's shape for the serving loop: it keeps at most depth + 1 tokens; a miss of
// the chain within the depth is recovered with probability `recovery` (0: a chain of `depth`).
struct TreeStep {
  int depth = 0;
  double recovery = 0;
};

// Expected tokens a step keeps (accepted + bonus) with independent chain draws whose accepted run
// A has P(A >= j) = survival[j - 1] (non-increasing, in [0, 1]; beyond the list, 0), for a tree of
// `depth` levels recovering a miss with probability `recovery`. recovery 0: E[min(A, depth)] + 1.
double renewal_tree_kept(const std::vector<double>& survival, int depth, double recovery);

// The recovery in [0, 1] at which renewal_tree_kept gives `kept` (bisection; clamped to the
// interval's ends where `kept` lies outside what the depth allows).
double solve_tree_recovery(const std::vector<double>& survival, int depth, double kept);

// A tree of `draft_nodes` nodes of `tree_algorithm` (a depth_topk table: EAGLE's dynamic trees)
// calibrated on `data`'s measurements of that algorithm and of `chain_algorithm` for `target` and
// `task`: its depth (min(EAGLE's depth + 1, nodes)) and the median recovery over the contexts
// measured for both (the nearest measured tree size at or below `draft_nodes`).
struct TreeCalibration {
  TreeStep step;
  int measured_nodes = 0;          // the measured tree size used
  double recovery_low = 0, recovery_high = 0;  // over the contexts
  std::vector<long long> contexts;
  std::string source;              // in words, for footers
};
TreeCalibration calibrate_tree_recovery(const AcceptanceData& data, const models::AlgorithmSpec& tree_algorithm,
                                        const std::string& chain_algorithm, const std::string& target,
                                        const std::string& task, int draft_nodes);
// The same for every tree size of 1..max_draft_nodes nodes (element i: i + 1 nodes), reading the
// measurements once.
std::vector<TreeCalibration> calibrate_tree_recoveries(const AcceptanceData& data,
                                                       const models::AlgorithmSpec& tree_algorithm,
                                                       const std::string& chain_algorithm, const std::string& target,
                                                       const std::string& task, int max_draft_nodes);

}  // namespace search::serving
