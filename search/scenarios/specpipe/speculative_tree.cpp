#include "search/scenarios/specpipe/speculative_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/config_error.hpp"

namespace search::specpipe {

namespace {
// A rank the target's token takes when it is outside every candidate list.
constexpr long long kOutside = 1LL << 40;
}  // namespace

RankModel RankModel::from_curve(const HitCurve& curve, int max_k) {
  RankModel m;
  m.curve_copy_ = curve;
  for (int j = 1; j <= max_k; ++j) m.log_prob_.push_back(std::log(std::max(curve.rank_probability(j), 1e-300)));
  // The draft lists its candidates by decreasing probability: keep the order non-increasing even
  // where the fitted density would rise (it does not for slopes <= 1 or a mode below rank 1).
  for (std::size_t j = 1; j < m.log_prob_.size(); ++j) m.log_prob_[j] = std::min(m.log_prob_[j], m.log_prob_[j - 1]);
  return m;
}

RankModel RankModel::fixed(double p, const HitCurve& order, int max_k) {
  if (!(p >= 0 && p <= 1)) throw models::InputError(fmt::format("--hit-rate: {} is outside [0, 1]", p));
  RankModel m = from_curve(order, max_k);
  m.fixed_p_ = p;
  return m;
}

long long RankModel::draw(std::mt19937_64& rng) const {
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  const double u = u01(rng);
  if (fixed_p_ >= 0) return u < fixed_p_ ? 1 : kOutside;
  return curve_copy_.rank_for_quantile(u, kOutside - 1);
}

SpeculativeTree::SpeculativeTree(int width, int candidates, const RankModel& ranks)
    : width_(width), candidates_(candidates), ranks_(ranks) {
  if (width < 1) throw models::InputError(fmt::format("--w: tree width {} (must be >= 1)", width));
  if (candidates < 1) throw models::InputError(fmt::format("--k: candidates {} (must be >= 1)", candidates));
  if (candidates > ranks.max_k())
    throw models::InputError(fmt::format("--k: {} exceeds the rank model's {} candidates", candidates, ranks.max_k()));
  reset(0);
}

void SpeculativeTree::reset(long long depth) {
  levels_.clear();
  TreeLevel root;
  root.depth = depth;
  root.nodes.push_back({-1, 1, 0.0});
  root.on_path = 0;
  levels_[depth] = root;
}

int SpeculativeTree::size(long long depth) const {
  const auto it = levels_.find(depth);
  return it == levels_.end() ? 0 : int(it->second.nodes.size());
}

long long SpeculativeTree::append_level(std::mt19937_64& rng, int* bottom_nodes) {
  const TreeLevel& bottom = levels_.rbegin()->second;
  if (bottom_nodes) *bottom_nodes = int(bottom.nodes.size());
  struct Cand {
    double log_p;
    int parent, rank;
  };
  std::vector<Cand> cands;
  cands.reserve(bottom.nodes.size() * std::size_t(candidates_));
  for (int i = 0; i < int(bottom.nodes.size()); ++i)
    for (int j = 1; j <= candidates_; ++j) cands.push_back({bottom.nodes[std::size_t(i)].log_p + ranks_.log_prob(j), i, j});
  const std::size_t keep = std::min(cands.size(), std::size_t(width_));
  // Highest cumulative probability first; ties by (parent, rank) so the tree is deterministic.
  std::partial_sort(cands.begin(), cands.begin() + long(keep), cands.end(), [](const Cand& x, const Cand& y) {
    if (x.log_p != y.log_p) return x.log_p > y.log_p;
    if (x.parent != y.parent) return x.parent < y.parent;
    return x.rank < y.rank;
  });
  TreeLevel level;
  level.depth = bottom.depth + 1;
  // The target's token at the new depth: its parent's rank-r candidate (drawn even when the
  // parent is absent, so the random stream does not depend on the tree's shape).
  const long long r = ranks_.draw(rng);
  for (std::size_t c = 0; c < keep; ++c) {
    level.nodes.push_back({cands[c].parent, cands[c].rank, cands[c].log_p});
    if (bottom.on_path >= 0 && cands[c].parent == bottom.on_path && cands[c].rank == r) level.on_path = int(c);
  }
  const long long d = level.depth;
  levels_[d] = std::move(level);
  return d;
}

bool SpeculativeTree::verify(long long depth) {
  auto it = levels_.find(depth);
  if (it == levels_.end() || it->second.on_path < 0) {
    reset(depth);
    return false;
  }
  // Keep the verified node, then each deeper level's descendants of it (parents re-indexed).
  TreeLevel& v = it->second;
  std::vector<int> map(v.nodes.size(), -1);  // old index in the level above -> new index
  map[std::size_t(v.on_path)] = 0;
  v.nodes = {v.nodes[std::size_t(v.on_path)]};
  v.on_path = 0;
  for (auto next = std::next(it); next != levels_.end(); ++next) {
    TreeLevel& l = next->second;
    std::vector<int> next_map(l.nodes.size(), -1);
    std::vector<TreeNode> kept;
    int on_path = -1;
    for (std::size_t i = 0; i < l.nodes.size(); ++i) {
      const int p = map[std::size_t(l.nodes[i].parent)];
      if (p < 0) continue;
      next_map[i] = int(kept.size());
      if (int(i) == l.on_path) on_path = int(kept.size());
      kept.push_back({p, l.nodes[i].rank, l.nodes[i].log_p});
    }
    l.nodes = std::move(kept);
    l.on_path = on_path;
    map = std::move(next_map);
  }
  // A level that lost every node stays (empty) so depths stay aligned with the pipeline's
  // slots: the target's next token cannot be in it, so its check is a miss and a flush.
  return true;
}

void SpeculativeTree::drop_through(long long depth) {
  while (!levels_.empty() && levels_.begin()->first <= depth && levels_.size() > 1) levels_.erase(levels_.begin());
}

}  // namespace search::specpipe
