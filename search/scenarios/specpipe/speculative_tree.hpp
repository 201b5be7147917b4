#pragma once
// SpecPipe's dynamic speculative token tree (paper 002 §3.2-3.3) as rank paths: every node is
// its parent's rank-j candidate in the draft's output. Layer appending: each bottom node proposes
// its k best candidates, and the w with the highest cumulative probability form the new level
// (§3.3.3, beam-search-like). To-subtree pruning: once the target verifies the token at depth
// E, every level keeps only the descendants of that token; a level that does not contain it
// empties the tree (a pipeline flush) and the verified token becomes the new root.
//
// Where the target's token is: at each depth the target's token is its (true) parent's rank-r
// candidate with r drawn i.i.d. from a rank model (the hit curve's rank distribution, or a fixed
// hit rate). It is in the tree iff its parent is and the (parent, r) candidate was kept.
// Cumulative probabilities: the draft is assumed calibrated on average, so its rank-j candidate
// carries probability P(rank = j) of the hit curve at every position (the beam's order is
// therefore the same at every depth; position-to-position variation of the draft's confidence is
// not modelled).
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "search/scenarios/specpipe/hit_curve.hpp"

namespace search::specpipe {

// Where the target's token ranks among its parent's candidates.
class RankModel {
 public:
  // Ranks from the hit curve (log-logistic): P(rank <= k) = H(k).
  static RankModel from_curve(const HitCurve& curve, int max_k);
  // A fixed hit rate p in [0, 1]: the target's token is its parent's best candidate with
  // probability p, else outside every candidate list. The beam order uses `order`'s rank
  // probabilities (any curve; only the order matters).
  static RankModel fixed(double p, const HitCurve& order, int max_k);
  long long draw(std::mt19937_64& rng) const;
  // log P(rank = j) used for cumulative probabilities, j = 1..max_k (non-increasing in j).
  double log_prob(int j) const { return log_prob_[std::size_t(j - 1)]; }
  int max_k() const { return int(log_prob_.size()); }

 private:
  HitCurve curve_copy_;
  double fixed_p_ = -1;  // < 0: use the curve
  std::vector<double> log_prob_;
};

struct TreeNode {
  int parent = -1;      // index in the previous level
  int rank = 1;         // the parent's rank-`rank` candidate
  double log_p = 0;     // cumulative log probability from the tree's root
};

struct TreeLevel {
  long long depth = 0;
  std::vector<TreeNode> nodes;
  int on_path = -1;     // the node that is the target's token at this depth, -1 if absent
};

class SpeculativeTree {
 public:
  SpeculativeTree(int width, int candidates, const RankModel& ranks);
  // Start over from a verified token at `depth` (decode start, or after a flush).
  void reset(long long depth);
  // Layer appending from the deepest level; returns the new level's depth. `bottom_nodes` (if
  // given) receives how many nodes the draft extended (its pass width).
  long long append_level(std::mt19937_64& rng, int* bottom_nodes = nullptr);
  // The target verified its token at `depth`: true (hit) when that level holds it, and every
  // level is pruned to its subtree; false (miss) empties the tree and re-roots it at `depth`.
  bool verify(long long depth);
  bool has_level(long long depth) const { return levels_.count(depth) != 0; }
  int size(long long depth) const;  // nodes at that depth (0 when absent)
  void drop_through(long long depth);  // forget levels at or above `depth` (computed and done)
  long long deepest() const { return levels_.rbegin()->first; }

 private:
  int width_, candidates_;
  const RankModel& ranks_;
  std::map<long long, TreeLevel> levels_;
};

}  // namespace search::specpipe
