#include "search/scenarios/specpipe/speculative_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/config_error.hpp"
#include "search/scenarios/specpipe/process_ranks.hpp"

namespace search::specpipe {


DraftConfidence parse_draft_confidence(const std::string& name) {
  if (name == "calibrated") return DraftConfidence::calibrated;
  if (name == "constant") return DraftConfidence::constant;
  throw models::InputError(fmt::format("--confidence: '{}' (expected calibrated or constant)", name));
}

const char* draft_confidence_name(DraftConfidence c) {
  return c == DraftConfidence::calibrated ? "calibrated" : "constant";
}

RankModel RankModel::from_curve(const HitCurve& curve, int max_k, DraftConfidence confidence) {
  RankModel m;
  m.curve_copy_ = curve;
  for (int j = 1; j <= max_k; ++j) m.log_prob_.push_back(std::log(std::max(curve.rank_probability(j), 1e-300)));
  // The draft lists its candidates by decreasing probability: keep the order non-increasing even
  // where the fitted density would rise (it does not for slopes <= 1 or a mode below rank 1).
  for (std::size_t j = 1; j < m.log_prob_.size(); ++j) m.log_prob_[j] = std::min(m.log_prob_[j], m.log_prob_[j - 1]);
  m.top1_mean_ = curve(1.0);
  // Calibrated confidence (see the header): P1 = m + (1 - m) U^(1 / beta), beta = (alpha - m) / (1 - alpha),
  // whose mean is alpha. m keeps P1 >= P2 = (1 - P1) p_2 / (1 - alpha). Degenerate curves (alpha at 0
  // or 1, or p_2 = alpha) have no spread to draw: they stay constant.
  const double alpha = m.top1_mean_;
  const double p2 = max_k >= 2 ? std::exp(m.log_prob_[1]) : 0.0;
  m.top1_floor_ = p2 / (1 - alpha + p2);
  const double beta = (alpha - m.top1_floor_) / (1 - alpha);
  if (confidence == DraftConfidence::calibrated && alpha > 0 && alpha < 1 && std::isfinite(beta) && beta > 0) {
    m.confidence_ = DraftConfidence::calibrated;
    m.top1_power_ = 1 / beta;
    m.log_rest_mean_ = std::log1p(-alpha);
  }
  // A node of the mean confidence: stands for a parent that is not in the tree (its draws go unused).
  m.set_mean_confidence(m.mean_node_);
  return m;
}

void RankModel::set_mean_confidence(TreeNode& node) const {
  // Exactly the curve's mean rank probabilities (log_prob(1) and log_prob(j) + 0.0).
  node.top1 = top1_mean_;
  node.log_top1 = log_prob_.empty() ? 0.0 : log_prob_[0];
  node.log_rest_shift = 0.0;
}

void RankModel::set_confidence(TreeNode& node, long long depth) const {
  set_top1(node, depth);
  set_rest_shift(node);
}

void RankModel::set_top1(TreeNode& node, long long depth) const {
  if (process_) {
    // The node's children predict the position below it: that position's state sets p1.
    node.top1 = process_->top1(node.key, process_->state_at(depth + 1));
    node.log_top1 = std::log(std::max(node.top1, 1e-300));
    return;
  }
  if (confidence_ == DraftConfidence::constant) return set_mean_confidence(node);
  const double u = double(mix64(node.key) >> 11) * 0x1.0p-53;  // [0, 1)
  node.top1 = top1_floor_ + (1 - top1_floor_) * std::pow(u, top1_power_);
  node.log_top1 = std::log(node.top1);
}

void RankModel::set_rest_shift(TreeNode& node) const {
  if (process_)
    node.log_rest_shift = std::log1p(-std::min(node.top1, 1 - 1e-12));  // log(1 - p1): one rank further down
  else if (confidence_ == DraftConfidence::constant)
    node.log_rest_shift = 0.0;
  else
    node.log_rest_shift = std::log1p(-node.top1) - log_rest_mean_;
}

double RankModel::child_log_prob(const TreeNode& parent, int j) const {
  if (process_) return process_->log_listed(parent.top1, parent.log_top1, parent.log_rest_shift, j);
  return j == 1 ? parent.log_top1 : parent.log_rest_shift + log_prob_[std::size_t(j - 1)];
}

long long RankModel::draw_below(std::mt19937_64& rng, long long depth, const TreeNode& parent) const {
  if (process_) return process_draw_below(rng, depth, parent);
  if (confidence_ == DraftConfidence::constant) return draw(rng, depth);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  const double u = u01(rng);
  if (u < parent.top1) return 1;
  // Rank >= 2 with probability proportional to the curve's p_j: the quantile alpha + v (1 - alpha)
  // of the curve, v = (u - P1) / (1 - P1) uniform on [0, 1).
  const double v = (u - parent.top1) / (1 - parent.top1);
  const double q = top1_mean_ + v * (1 - top1_mean_);
  return std::max(2LL, curve_copy_.rank_for_quantile(q, kOutsideRank - 1));
}

RankModel RankModel::fixed(double p, const HitCurve& order, int max_k) {
  if (!(p >= 0 && p <= 1)) throw models::InputError(fmt::format("--hit-rate: {} is outside [0, 1]", p));
  RankModel m = from_curve(order, max_k, DraftConfidence::constant);  // rank 1 or nothing: no spread
  m.fixed_p_ = p;
  return m;
}

RankModel RankModel::from_probability_trace(const ProbabilityTrace& trace, int max_k) {
  if (trace.positions.empty()) throw models::InputError(fmt::format("{}: the trace has no positions", trace.source));
  std::size_t listed = trace.positions.front().top_probs.size();
  for (const auto& p : trace.positions) listed = std::min(listed, p.top_probs.size());
  if (max_k > int(listed))
    throw models::InputError(fmt::format("--k: {} candidates, but {} lists only {} draft probabilities per position",
                                         max_k, trace.source, listed));
  RankModel m;
  m.trace_source_ = trace.source;
  for (const auto& p : trace.positions) m.trace_ranks_.push_back(p.rank < 0 ? kOutsideRank : (long long)p.rank + 1);
  for (int j = 0; j < max_k; ++j) {
    double sum = 0;
    for (const auto& p : trace.positions) sum += p.top_probs[std::size_t(j)];
    m.log_prob_.push_back(std::log(std::max(sum / double(trace.positions.size()), 1e-300)));
  }
  for (std::size_t j = 1; j < m.log_prob_.size(); ++j) m.log_prob_[j] = std::min(m.log_prob_[j], m.log_prob_[j - 1]);
  return m;
}

long long RankModel::draw(std::mt19937_64& rng, long long depth) const {
  if (!trace_ranks_.empty()) return trace_ranks_[std::size_t(depth % (long long)trace_ranks_.size())];
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  const double u = u01(rng);
  if (fixed_p_ >= 0) return u < fixed_p_ ? 1 : kOutsideRank;
  if (process_) {
    // Marginal over the draft's p1 in the state at this depth: its rank law's inverse CDF.
    const auto& cdf = process_->cdf[std::size_t(process_->state_at(depth))];
    const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
    return it == cdf.end() ? kOutsideRank : (long long)(it - cdf.begin()) + 1;
  }
  return curve_copy_.rank_for_quantile(u, kOutsideRank - 1);
}

int RankModel::nucleus_size(double p) const {
  double cdf = 0;
  for (int j = 1; j <= max_k(); ++j) {
    cdf += std::exp(log_prob(j));
    if (cdf >= p) return j;
  }
  return max_k();
}

std::string RankModel::describe() const {
  if (!trace_ranks_.empty()) return "trace " + trace_source_;
  if (fixed_p_ >= 0) return fmt::format("fixed hit rate {}", fixed_p_);
  if (process_) return fmt::format("acceptance process {} ({})", process_->process.source(), process_->process.params().describe());
  if (confidence_ == DraftConfidence::calibrated)
    return fmt::format("hit curve {} (calibrated draft confidence: top-1 probability on [{:.3f}, 1], mean {:.3f})",
                       curve_copy_.name, top1_floor_, top1_mean_);
  return "hit curve " + curve_copy_.name + " (constant draft confidence)";
}

Verification parse_verification(const std::string& name) {
  if (name == "greedy") return Verification::greedy;
  if (name == "relaxed") return Verification::relaxed;
  if (name == "top-p") return Verification::top_p;
  throw models::InputError(fmt::format("--verify: '{}' (expected greedy, relaxed or top-p)", name));
}

const char* verification_name(Verification v) {
  switch (v) {
    case Verification::greedy: return "greedy";
    case Verification::relaxed: return "relaxed";
    case Verification::top_p: return "top-p";
  }
  return "greedy";
}

SpeculativeTree::SpeculativeTree(int width, int candidates, const RankModel& ranks, Verification verification,
                                 double top_p, std::uint64_t seed)
    : width_(width), candidates_(candidates), seed_(seed), ranks_(ranks), verification_(verification) {
  if (width < 1) throw models::InputError(fmt::format("--w: tree width {} (must be >= 1)", width));
  if (candidates < 1) throw models::InputError(fmt::format("--k: candidates {} (must be >= 1)", candidates));
  if (candidates > ranks.max_k())
    throw models::InputError(fmt::format("--k: {} exceeds the rank model's {} candidates", candidates, ranks.max_k()));
  if (verification == Verification::top_p) {
    if (!(top_p > 0 && top_p < 1)) throw models::InputError(fmt::format("--top-p: {} (must be in (0, 1))", top_p));
    nucleus_ = ranks.nucleus_size(top_p);
  }
  reset(0);
}

std::uint64_t SpeculativeTree::text_key(long long depth) const {
  return mix64(seed_ ^ mix64(std::uint64_t(depth) * 0xD1B54A32D192ED03ULL));
}

std::uint64_t SpeculativeTree::child_key(std::uint64_t parent_key, int rank) {
  return mix64(parent_key ^ (std::uint64_t(rank) * 0xA24BAED4963EE407ULL));
}

void SpeculativeTree::mark_target(TreeLevel& level, const TreeLevel& above, std::mt19937_64& rng) {
  // The target's token at this depth: its parent's rank-r candidate (drawn even when the parent
  // is absent, so the random stream does not depend on the tree's shape). Below a parent of
  // known confidence the draw follows it; without one any confidence serves (the draw is unused).
  const int parent_on_path = above.on_path;
  const TreeNode& parent =
      parent_on_path >= 0 ? above.nodes[std::size_t(parent_on_path)] : ranks_.mean_confidence_node();
  const long long r = ranks_.draw_below(rng, level.depth, parent);
  level.on_path = -1;
  level.in_nucleus.clear();
  std::vector<long long> nucleus{r};
  for (int e = 1; e < nucleus_; ++e) nucleus.push_back(ranks_.draw_below(rng, level.depth, parent));
  if (parent_on_path < 0) return;
  for (std::size_t c = 0; c < level.nodes.size(); ++c) {
    const auto& n = level.nodes[c];
    if (n.parent != parent_on_path) continue;
    if (n.rank == r) level.on_path = int(c);
    if (verification_ == Verification::top_p &&
        std::find(nucleus.begin(), nucleus.end(), (long long)n.rank) != nucleus.end())
      level.in_nucleus.push_back(int(c));
  }
}

void SpeculativeTree::reset(long long depth) {
  levels_.clear();
  TreeLevel root;
  root.depth = depth;
  TreeNode verified;
  verified.key = text_key(depth);
  ranks_.set_confidence(verified, depth);
  root.nodes.push_back(verified);
  root.confidence_set = true;
  root.on_path = 0;
  levels_[depth] = root;
}

int SpeculativeTree::size(long long depth) const {
  const auto it = levels_.find(depth);
  return it == levels_.end() ? 0 : int(it->second.nodes.size());
}

long long SpeculativeTree::append_level(std::mt19937_64& rng, int* bottom_nodes) {
  TreeLevel& bottom = levels_.rbegin()->second;
  if (bottom_nodes) *bottom_nodes = int(bottom.nodes.size());
  // The bottom level's confidences, now that its nodes are extended (a function of each node's
  // key and depth, so the same whenever they are filled in). Every shallower level's are set:
  // it was the bottom once.
  if (!bottom.confidence_set) {
    for (TreeNode& n : bottom.nodes) ranks_.set_top1(n, bottom.depth);
    bottom.confidence_set = true;
  }
  // Each bottom node's candidates are already in the order Cand::better ranks them (log_prob is
  // non-increasing in the rank, and adding the node's log_p keeps it so), so the w best of all
  // of them are the first w of a merge of the per-node lists, instead of ordering every node x k
  // candidates. The merge is a tournament (loser) tree over the nodes' next candidates: after
  // the winner is taken, its node's next candidate replays only the matches on its path to the
  // root, one comparison per level (a binary heap's sift-down made two). The order is total
  // (ties by parent, then rank), so any correct merge gives these nodes in this order.
  const int nodes = int(bottom.nodes.size());
  const std::size_t keep = std::min(std::size_t(nodes) * std::size_t(candidates_), std::size_t(width_));
  std::vector<Cand>& heads = heads_;  // per node: its next candidate
  heads.resize(std::size_t(nodes));
  for (int i = 0; i < nodes; ++i) {
    // Field by field: a Cand built whole and copied in stalled on store forwarding.
    const TreeNode& n = bottom.nodes[std::size_t(i)];
    Cand& c = heads[std::size_t(i)];
    c.log_p = n.log_p + ranks_.child_log_prob(n, 1);
    c.parent = i;
    c.rank = 1;
  }
  // Leaves n .. 2n - 1 are the nodes, internal node j (1 .. n - 1) has children 2j and 2j + 1 and
  // keeps the loser of its match; the overall winner is kept apart.
  std::vector<int>& losers = losers_;
  losers.assign(std::size_t(std::max(1, nodes)), -1);
  auto better = [&](int a, int b) { return heads[std::size_t(a)].better(heads[std::size_t(b)]); };
  int winner = 0;
  if (nodes > 1) {
    // Winners of each subtree, bottom up (leaf j stands for node j - n).
    std::vector<int>& up = tournament_;
    up.assign(2 * std::size_t(nodes), -1);
    for (int i = 0; i < nodes; ++i) up[std::size_t(nodes + i)] = i;
    for (int j = nodes - 1; j >= 1; --j) {
      const int a = up[std::size_t(2 * j)], b = up[std::size_t(2 * j + 1)];
      const bool a_wins = better(a, b);
      up[std::size_t(j)] = a_wins ? a : b;
      losers[std::size_t(j)] = a_wins ? b : a;
    }
    winner = up[1];
  }
  TreeLevel level;
  level.depth = bottom.depth + 1;
  level.nodes.reserve(keep);
  // A node whose candidates are all taken: it loses every match (no real candidate is at
  // -infinity with a parent index past every node's).
  const Cand spent{-std::numeric_limits<double>::infinity(), std::numeric_limits<int>::max(),
                   std::numeric_limits<int>::max()};
  while (level.nodes.size() < keep) {
    Cand& c = heads[std::size_t(winner)];
    TreeNode& n = level.nodes.emplace_back();
    n.parent = c.parent;
    n.rank = c.rank;
    n.log_p = c.log_p;
    if (c.rank < candidates_) {
      c.rank += 1;
      TreeNode& p = bottom.nodes[std::size_t(c.parent)];
      // A node's lower ranks are needed once its best candidate is taken: their shift is worked
      // out then (a node whose best is never taken never needs it).
      if (c.rank == 2) ranks_.set_rest_shift(p);
      c.log_p = p.log_p + ranks_.child_log_prob(p, c.rank);
    } else {
      c = spent;
    }
    // Replay the winner's path: at each match the stored loser plays the rising candidate.
    for (int j = (nodes + winner) / 2; j >= 1; j /= 2) {
      int& loser = losers[std::size_t(j)];
      if (better(loser, winner)) std::swap(loser, winner);
    }
  }
  mark_target(level, bottom, rng);
  // Each new node's context: the text's own token where it is the target's, else a branch off
  // its parent's context. Its confidence follows from the key when the level is extended.
  if (ranks_.confidence() == DraftConfidence::calibrated) {
    for (std::size_t c = 0; c < level.nodes.size(); ++c) {
      TreeNode& n = level.nodes[c];
      n.key = int(c) == level.on_path ? text_key(level.depth)
                                      : child_key(bottom.nodes[std::size_t(n.parent)].key, n.rank);
    }
  }
  const long long d = level.depth;
  levels_[d] = std::move(level);
  return d;
}

bool SpeculativeTree::verify(long long depth) {
  if (verification_ != Verification::greedy)
    throw std::logic_error("SpeculativeTree::verify: relaxed and top-p verification need verify_with");
  auto it = levels_.find(depth);
  if (it == levels_.end() || it->second.on_path < 0) {
    reset(depth);
    return false;
  }
  prune_below(it, nullptr);
  return true;
}

VerifyOutcome SpeculativeTree::verify_with(long long depth, std::mt19937_64& rng) {
  auto it = levels_.find(depth);
  if (it == levels_.end() || (it->second.on_path < 0 && it->second.nodes.empty())) {
    reset(depth);
    return VerifyOutcome::miss;
  }
  TreeLevel& v = it->second;
  if (v.on_path >= 0) {
    prune_below(it, nullptr);
    return VerifyOutcome::hit;
  }
  int chosen = -1;
  // Every node of the level descends from the last verified token (pruned trees), so any of
  // them continues the text; the draft's order (best first) stands in for the target's.
  if (verification_ == Verification::relaxed) chosen = 0;
  if (verification_ == Verification::top_p && !v.in_nucleus.empty()) chosen = v.in_nucleus.front();
  if (chosen < 0) {
    reset(depth);
    return VerifyOutcome::miss;
  }
  v.on_path = chosen;
  prune_below(it, &rng);
  return VerifyOutcome::substituted;
}

void SpeculativeTree::prune_below(std::map<long long, TreeLevel>::iterator it, std::mt19937_64* redraw) {
  // Keep the verified node, then each deeper level's descendants of it (parents re-indexed).
  TreeLevel& v = it->second;
  std::vector<int>& map = map_;  // old index in the level above -> new index
  map.assign(v.nodes.size(), -1);
  map[std::size_t(v.on_path)] = 0;
  v.nodes.front() = v.nodes[std::size_t(v.on_path)];
  v.nodes.resize(1);
  v.on_path = 0;
  for (auto next = std::next(it); next != levels_.end(); ++next) {
    TreeLevel& l = next->second;
    std::vector<int>& next_map = next_map_;
    next_map.assign(l.nodes.size(), -1);
    // Kept nodes move down in place, in their order (a node's new index is never above its old).
    int kept = 0, on_path = -1;
    for (std::size_t i = 0; i < l.nodes.size(); ++i) {
      const int p = map[std::size_t(l.nodes[i].parent)];
      if (p < 0) continue;
      next_map[i] = kept;
      if (int(i) == l.on_path) on_path = kept;
      TreeNode& moved = l.nodes[std::size_t(kept++)];
      moved = l.nodes[i];
      moved.parent = p;
    }
    l.nodes.resize(std::size_t(kept));
    // Nucleus members survive the prune like the path does (re-indexed in the kept order).
    int nucleus = 0;
    for (int i : l.in_nucleus)
      if (next_map[std::size_t(i)] >= 0) l.in_nucleus[std::size_t(nucleus++)] = next_map[std::size_t(i)];
    l.in_nucleus.resize(std::size_t(nucleus));
    l.on_path = on_path;
    std::swap(map, next_map);
    // After a substitution the text continues from the substituted token: draw the target's
    // tokens of the deeper levels again (their parent on the path is the previous level's).
    if (redraw) mark_target(l, std::prev(next)->second, *redraw);
  }
  // A level that lost every node stays (empty) so depths stay aligned with the pipeline's
  // slots: the target's next token cannot be in it, so its check is a miss and a flush.
}

void SpeculativeTree::drop_through(long long depth) {
  while (!levels_.empty() && levels_.begin()->first <= depth && levels_.size() > 1) levels_.erase(levels_.begin());
}

}  // namespace search::specpipe
