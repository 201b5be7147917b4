#pragma once
// Token-tree construction methods compared in paper 000 (§III-C, §IV-E), each as a node
// ranking: an order of rank paths whose every prefix is a prefix-closed tree, so the tree for
// verification length x is the ranking's first x - 1 nodes and AAT for every x comes from one
// pass over the ranking.
//   - prior-score: nodes by how often a training trace accepted them (the paper's score list),
//     ties broken parents first (then shallower, then lexicographically), so every prefix is a
//     tree. On its own trace this is the exact optimum over all trees of each size, because
//     AAT(T) - 1 is the sum of the node counts of T (see path_counts.hpp).
//   - width-first: fills a fixed tree shape level by level (the paper's "width-based method").
//   - depth-first: the (k+1)-th node goes one level below the k-th, under it where the shape
//     allows (the paper's "depth-based method"); past the shape's last level, or when the next
//     level has no free place, it starts again at the shallowest level with a free place.
#include <cstdint>
#include <string>
#include <vector>

#include "search/trees/path_counts.hpp"
#include "search/trees/token_tree.hpp"

namespace search {

struct NodeRanking {
  std::string method;
  std::vector<RankPath> paths;  // every prefix is prefix-closed

  int size() const { return int(paths.size()); }
  // The tree of the first `draft_nodes` nodes (x = draft_nodes + 1); needs draft_nodes <= size().
  TokenTree tree(int draft_nodes) const;
  // Depth of the tree of the first n nodes, for n = 0..size().
  std::vector<int> depths() const;
};

// Prior-score ranking of `max_draft_nodes` nodes from a training trace. With max_depth > 0 only
// nodes no deeper than max_depth are ranked (the hardware-aware search's depth bound). When the
// trace accepted fewer distinct nodes than asked for, the ranking is completed with nodes the
// trace never accepted (count 0: they add nothing to AAT), smallest missing rank first.
NodeRanking prior_score_ranking(const PathCounts& train, int max_draft_nodes, int max_depth = 0);

// The same ranking for many depth bounds: sorts the trace's nodes once, then each ranking()
// filters that order (the hardware-aware search asks for one ranking per depth bound).
class PriorScoreOrder {
 public:
  explicit PriorScoreOrder(const PathCounts& train);  // keeps a reference to `train`
  NodeRanking ranking(int max_draft_nodes, int max_depth = 0) const;  // = prior_score_ranking

 private:
  const PathCounts& train_;
  std::vector<PathCounts::NodeId> order_;  // every non-root node, best first
};

// Baselines over a fixed tree shape (TokenTree::from_widths); their rankings hold all of the
// shape's nodes, so they cover x up to shape.verification_length().
NodeRanking width_first_ranking(const TokenTree& shape);
NodeRanking depth_first_ranking(const TokenTree& shape);

// AAT (DESIGN.md contract 3, bonus token included) of the first n nodes of `ranking` on
// `trace`, for n = 0..ranking.size(): result[n] is AAT at x = n + 1. Throws InputError when the
// trace has no iterations.
std::vector<double> nested_aat(const NodeRanking& ranking, const PathCounts& trace);
// AAT of one tree on folded / raw traces (the latter straight from the contract's definition:
// 1 + mean over lines of the longest prefix of the line in the tree).
double tree_aat(const TokenTree& tree, const PathCounts& trace);
double tree_aat_streaming(const TokenTree& tree, TraceReader& reader);

}  // namespace search
