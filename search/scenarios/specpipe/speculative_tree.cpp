#include "search/scenarios/specpipe/speculative_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

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

RankModel RankModel::from_probability_trace(const ProbabilityTrace& trace, int max_k) {
  if (trace.positions.empty()) throw models::InputError(fmt::format("{}: the trace has no positions", trace.source));
  std::size_t listed = trace.positions.front().top_probs.size();
  for (const auto& p : trace.positions) listed = std::min(listed, p.top_probs.size());
  if (max_k > int(listed))
    throw models::InputError(fmt::format("--k: {} candidates, but {} lists only {} draft probabilities per position",
                                         max_k, trace.source, listed));
  RankModel m;
  m.trace_source_ = trace.source;
  for (const auto& p : trace.positions) m.trace_ranks_.push_back(p.rank < 0 ? kOutside : (long long)p.rank + 1);
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
  if (fixed_p_ >= 0) return u < fixed_p_ ? 1 : kOutside;
  return curve_copy_.rank_for_quantile(u, kOutside - 1);
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
  return "hit curve " + curve_copy_.name;
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
                                 double top_p)
    : width_(width), candidates_(candidates), ranks_(ranks), verification_(verification) {
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

void SpeculativeTree::mark_target(TreeLevel& level, int parent_on_path, std::mt19937_64& rng) {
  // The target's token at this depth: its parent's rank-r candidate (drawn even when the parent
  // is absent, so the random stream does not depend on the tree's shape).
  const long long r = ranks_.draw(rng, level.depth);
  level.on_path = -1;
  level.in_nucleus.clear();
  std::vector<long long> nucleus{r};
  for (int e = 1; e < nucleus_; ++e) nucleus.push_back(ranks_.draw(rng, level.depth));
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
  // Highest cumulative probability first; ties by (parent, rank) so the tree is deterministic.
  auto better = [](const Cand& x, const Cand& y) {
    if (x.log_p != y.log_p) return x.log_p > y.log_p;
    if (x.parent != y.parent) return x.parent < y.parent;
    return x.rank < y.rank;
  };
  // Each bottom node's candidates are already in that order (log_prob is non-increasing in the
  // rank, and adding the node's log_p keeps it so), so the w best of all of them are the first w
  // of a merge of the per-node lists: a heap of each node's next candidate, popped w times,
  // instead of ordering every node x k candidates (the same nodes in the same order).
  const int nodes = int(bottom.nodes.size());
  const std::size_t keep = std::min(std::size_t(nodes) * std::size_t(candidates_), std::size_t(width_));
  auto worse = [&](const Cand& x, const Cand& y) { return better(y, x); };  // heap top: the best
  std::vector<Cand> heads;
  heads.reserve(std::size_t(nodes));
  for (int i = 0; i < nodes; ++i) heads.push_back({bottom.nodes[std::size_t(i)].log_p + ranks_.log_prob(1), i, 1});
  std::make_heap(heads.begin(), heads.end(), worse);
  std::vector<Cand> best;
  best.reserve(keep);
  while (best.size() < keep) {
    std::pop_heap(heads.begin(), heads.end(), worse);
    Cand& c = heads.back();
    best.push_back(c);
    if (c.rank < candidates_) {
      c.rank += 1;
      c.log_p = bottom.nodes[std::size_t(c.parent)].log_p + ranks_.log_prob(c.rank);
      std::push_heap(heads.begin(), heads.end(), worse);
    } else {
      heads.pop_back();
    }
  }
  TreeLevel level;
  level.depth = bottom.depth + 1;
  level.nodes.reserve(keep);
  for (const Cand& c : best) level.nodes.push_back({c.parent, c.rank, c.log_p});
  mark_target(level, bottom.on_path, rng);
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
    // Nucleus members survive the prune like the path does (re-indexed in the kept order).
    std::vector<int> nucleus;
    for (int i : l.in_nucleus)
      if (next_map[std::size_t(i)] >= 0) nucleus.push_back(next_map[std::size_t(i)]);
    l.nodes = std::move(kept);
    l.on_path = on_path;
    l.in_nucleus = std::move(nucleus);
    map = std::move(next_map);
    // After a substitution the text continues from the substituted token: draw the target's
    // tokens of the deeper levels again (their parent on the path is the previous level's).
    if (redraw) mark_target(l, std::prev(next)->second.on_path, *redraw);
  }
  // A level that lost every node stays (empty) so depths stay aligned with the pipeline's
  // slots: the target's next token cannot be in it, so its check is a miss and a flush.
}

void SpeculativeTree::drop_through(long long depth) {
  while (!levels_.empty() && levels_.begin()->first <= depth && levels_.size() > 1) levels_.erase(levels_.begin());
}

}  // namespace search::specpipe
