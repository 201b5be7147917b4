#include "search/acceptance/acceptance_process.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <utility>

#include "models/config_error.hpp"
#include "search/acceptance/rank_tail.hpp"

namespace search {
namespace {

using models::InputError;
using Matrix2 = std::array<std::array<double, 2>, 2>;

// Row vector times the state transition P = lambda I + (1 - lambda) 1 pi^T.
StateDistribution step(const StateDistribution& v, const AcceptanceProcessParams& p) {
  const double mass = v[0] + v[1];
  const double pi = p.easy_share, lambda = p.persistence;
  return {lambda * v[0] + (1 - lambda) * mass * pi, lambda * v[1] + (1 - lambda) * mass * (1 - pi)};
}

// E[X (1 - X)^r] for X ~ Beta(c, 1), c = a / (1 - a): c B(c + 1, r + 1) (mean a at r = 0).
double calibrated_rank_probability(double a, int rank) {
  if (a >= 1) return rank == 0 ? 1.0 : 0.0;
  if (rank == 0) return a;
  const double c = a / (1 - a);
  return c * std::exp(std::lgamma(c + 1) + std::lgamma(rank + 1.0) - std::lgamma(c + rank + 2));
}

void check_depth(int depth) {
  if (depth < 1) throw InputError(fmt::format("acceptance process: depth must be >= 1, got {}", depth));
}

// Prefix-closed rank paths sorted so that every parent precedes its children, with each node's
// parent index (-1: the root).
struct IndexedTree {
  std::vector<RankPath> nodes;
  std::vector<int> parent;
  std::vector<std::vector<int>> children;  // children[i + 1]: of node i; children[0]: the root's
};

IndexedTree index_tree(const std::vector<RankPath>& input) {
  IndexedTree t;
  t.nodes = input;
  std::sort(t.nodes.begin(), t.nodes.end(), [](const RankPath& a, const RankPath& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  std::map<RankPath, int> index;
  t.children.assign(t.nodes.size() + 1, {});
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const RankPath& path = t.nodes[i];
    if (path.empty()) throw InputError("acceptance process: a tree node has an empty rank path (the root is implicit)");
    for (int r : path)
      if (r < 0) throw InputError(fmt::format("acceptance process: negative rank in node '{}'", format_rank_path(path)));
    if (!index.emplace(path, int(i)).second)
      throw InputError(fmt::format("acceptance process: node '{}' is listed twice", format_rank_path(path)));
    int parent = -1;
    if (path.size() > 1) {
      const auto it = index.find(RankPath(path.begin(), path.end() - 1));
      if (it == index.end())
        throw InputError(fmt::format("acceptance process: the tree is not prefix-closed: '{}' has no parent", format_rank_path(path)));
      parent = it->second;
    }
    t.parent.push_back(parent);
    t.children[std::size_t(parent + 1)].push_back(int(i));
  }
  return t;
}

struct TreeOutcome {
  double tpc = 1;
  StateDistribution next_start{0, 0};
};

// One iteration from `start`: expected tokens and the next iteration's start distribution.
TreeOutcome run_tree(const AcceptanceProcess& proc, const IndexedTree& t, const StateDistribution& start) {
  const auto& p = proc.params();
  TreeOutcome out;
  // f[i]: P(node i accepted, state at its position); g: the state one position further.
  std::vector<StateDistribution> f(t.nodes.size());
  StateDistribution emitted{0, 0};  // state at the position of the emitted (correction/bonus) token
  auto settle = [&](const StateDistribution& g, const std::vector<int>& kids, int depth) {
    StateDistribution missed = g;
    for (int s = 0; s < 2; ++s) {
      double covered = 0;
      for (int k : kids) covered += proc.rank_probability(s, depth, t.nodes[std::size_t(k)].back());
      missed[std::size_t(s)] *= std::max(0.0, 1 - covered);
    }
    emitted[0] += missed[0];
    emitted[1] += missed[1];
  };
  settle(start, t.children[0], 1);
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const int depth = int(t.nodes[i].size());
    const StateDistribution at = t.parent[i] < 0 ? start : step(f[std::size_t(t.parent[i])], p);
    for (int s = 0; s < 2; ++s)
      f[i][std::size_t(s)] = at[std::size_t(s)] * proc.rank_probability(s, depth, t.nodes[i].back());
    out.tpc += f[i][0] + f[i][1];
    settle(step(f[i], p), t.children[i + 1], depth + 1);
  }
  out.next_start = step(emitted, p);
  return out;
}

}  // namespace

std::string to_string(DraftConfidence c) { return c == DraftConfidence::constant ? "constant" : "calibrated"; }

DraftConfidence parse_draft_confidence(const std::string& key, const std::string& text) {
  if (text == "constant") return DraftConfidence::constant;
  if (text == "calibrated") return DraftConfidence::calibrated;
  throw InputError(fmt::format("{}: expected constant or calibrated, got '{}'", key, text));
}

void AcceptanceProcessParams::validate(const std::string& source) const {
  auto fail = [&](const char* key, double v, const char* expected) {
    throw InputError(fmt::format("{}: {} must be {}, got {}", source, key, expected, v));
  };
  if (!(alpha_easy > 0 && alpha_easy <= 1)) fail("alpha_easy", alpha_easy, "in (0, 1]");
  if (!(alpha_hard > 0 && alpha_hard <= alpha_easy)) fail("alpha_hard", alpha_hard, "in (0, alpha_easy]");
  if (!(easy_share >= 0 && easy_share <= 1)) fail("easy_share", easy_share, "in [0, 1]");
  if (!(persistence >= 0 && persistence < 1)) fail("persistence", persistence, "in [0, 1)");
  if (!(depth_decay > 0 && depth_decay <= 10)) fail("depth_decay", depth_decay, "in (0, 10]");
  if (!(alpha_cap > 0 && alpha_cap <= 1)) fail("alpha_cap", alpha_cap, "in (0, 1]");
  if (!(calibration >= 0 && calibration <= 1)) fail("calibration", calibration, "in [0, 1]");
  if (!(lower_rank_share > 0 && lower_rank_share <= 1)) fail("lower_rank_share", lower_rank_share, "in (0, 1]");
  // Above 1 the log-logistic's listed probabilities rise from rank 1 to 2 at a low p1: a draft
  // never lists its candidates that way (and the trees' best-first searches assume it does not).
  if (!(rank_tail_shape >= 0 && rank_tail_shape <= 1))
    fail("rank_tail_shape", rank_tail_shape, "0 (geometric tail) or a log-logistic shape in (0, 1]");
}

std::string AcceptanceProcessParams::describe() const {
  return fmt::format("alpha_easy={:.6g} alpha_hard={:.6g} easy_share={:.6g} persistence={:.6g} depth_decay={:.6g} "
                     "alpha_cap={:.6g} confidence={} calibration={:.6g} lower_rank_share={:.6g}{}",
                     alpha_easy, alpha_hard, easy_share, persistence, depth_decay, alpha_cap, to_string(confidence),
                     calibration, lower_rank_share,
                     rank_tail_shape > 0 ? fmt::format(" rank_tail_shape={:.6g}", rank_tail_shape) : std::string());
}

bool AcceptanceProcessParams::operator==(const AcceptanceProcessParams& o) const {
  return alpha_easy == o.alpha_easy && alpha_hard == o.alpha_hard && easy_share == o.easy_share &&
         persistence == o.persistence && depth_decay == o.depth_decay && alpha_cap == o.alpha_cap &&
         confidence == o.confidence && calibration == o.calibration && lower_rank_share == o.lower_rank_share &&
         rank_tail_shape == o.rank_tail_shape;
}

AcceptanceProcess::AcceptanceProcess(AcceptanceProcessParams params, std::string source)
    : params_(params), source_(std::move(source)) {
  params_.validate(source_);
}

AcceptanceProcess AcceptanceProcess::independent(double alpha, DraftConfidence confidence, double depth_decay,
                                                 std::string source) {
  AcceptanceProcessParams p;
  p.alpha_easy = p.alpha_hard = alpha;
  p.easy_share = 1;
  p.persistence = 0;
  p.depth_decay = depth_decay;
  p.confidence = confidence;
  return AcceptanceProcess(p, std::move(source));
}

bool AcceptanceProcess::is_independent() const {
  return params_.alpha_easy == params_.alpha_hard || params_.easy_share == 0 || params_.easy_share == 1;
}

double AcceptanceProcess::state_alpha(int state, int depth) const {
  check_depth(depth);
  const double base = state == 0 ? params_.alpha_easy : params_.alpha_hard;
  return std::min(base * std::pow(params_.depth_decay, depth - 1), params_.alpha_cap);
}

double AcceptanceProcess::rank_probability(int state, int depth, int rank) const {
  if (rank < 0) throw InputError(fmt::format("acceptance process: rank must be >= 0, got {}", rank));
  const double a = state_alpha(state, depth);
  const double share = rank == 0 ? 1.0 : params_.lower_rank_share;
  const double shape = params_.rank_tail_shape;
  const double constant = rank_probability_given_top1(a, rank, shape);
  if (params_.confidence == DraftConfidence::constant) return share * constant;
  const double w = params_.calibration;
  const double calibrated =
      shape <= 0 ? calibrated_rank_probability(a, rank)
                 : calibrated_top1_expectation(a, [&](double p1) { return rank_probability_given_top1(p1, rank, shape); });
  return share * (w * calibrated + (1 - w) * constant);
}

double AcceptanceProcess::mean_acceptance(int depth) const {
  return params_.easy_share * state_alpha(0, depth) + (1 - params_.easy_share) * state_alpha(1, depth);
}

double AcceptanceProcess::top_k_hit(int k, int depth) const {
  if (k < 1) throw InputError(fmt::format("acceptance process: top-k hit needs k >= 1, got {}", k));
  double hit = 0;
  for (int s = 0; s < 2; ++s) {
    double in_state = 0;
    for (int r = 0; r < k; ++r) in_state += rank_probability(s, depth, r);
    hit += (s == 0 ? params_.easy_share : 1 - params_.easy_share) * std::min(1.0, in_state);
  }
  return hit;
}

std::vector<RankPath> AcceptanceProcess::best_tree_with_widths(const std::vector<int>& widths) const {
  std::vector<RankPath> tree;
  std::vector<std::pair<double, RankPath>> level{{1.0, RankPath{}}};
  for (std::size_t d = 0; d < widths.size(); ++d) {
    const int w = widths[d];
    if (w < 1 || w > 4096) throw InputError(fmt::format("acceptance process: tree width {} at depth {} (expected 1..4096)", w, d + 1));
    std::vector<std::pair<double, RankPath>> children;
    for (const auto& [prior, path] : level)
      for (int r = 0; r < w; ++r) {
        const double q = params_.easy_share * rank_probability(0, int(d) + 1, r) +
                         (1 - params_.easy_share) * rank_probability(1, int(d) + 1, r);
        RankPath child = path;
        child.push_back(r);
        children.emplace_back(prior * q, std::move(child));
      }
    std::stable_sort(children.begin(), children.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    if (int(children.size()) > w) children.resize(std::size_t(w));
    for (const auto& c : children) tree.push_back(c.second);
    level = std::move(children);
  }
  return tree;
}

std::vector<RankPath> AcceptanceProcess::best_first_nodes(int nodes, int max_depth, int max_branching) const {
  if (nodes < 0 || nodes > 100000 || max_depth < 1 || max_branching < 1)
    throw InputError(fmt::format("acceptance process: best-first tree of {} nodes, depth {}, branching {} (expected "
                                 "0..100000 nodes, depth and branching >= 1)", nodes, max_depth, max_branching));
  auto mean_rank = [&](int depth, int rank) {
    return params_.easy_share * rank_probability(0, depth, rank) + (1 - params_.easy_share) * rank_probability(1, depth, rank);
  };
  struct Candidate {
    double prior, parent_prior;
    RankPath path;
    bool operator<(const Candidate& o) const { return prior != o.prior ? prior < o.prior : path > o.path; }
  };
  std::priority_queue<Candidate> frontier;
  // A node's next sibling and first child enter the frontier when it is taken, so the frontier
  // stays small and every prefix of the output is prefix-closed (a child's prior never exceeds its
  // parent's, a sibling's never exceeds its elder's under a non-increasing rank tail).
  frontier.push({mean_rank(1, 0), 1.0, RankPath{0}});
  std::vector<RankPath> out;
  while (int(out.size()) < nodes && !frontier.empty()) {
    Candidate c = frontier.top();
    frontier.pop();
    const int depth = int(c.path.size());
    if (c.path.back() + 1 < max_branching) {
      RankPath sibling = c.path;
      sibling.back() += 1;
      frontier.push({c.parent_prior * mean_rank(depth, sibling.back()), c.parent_prior, sibling});
    }
    if (depth < max_depth) {
      RankPath child = c.path;
      child.push_back(0);
      frontier.push({c.prior * mean_rank(depth + 1, 0), c.prior, child});
    }
    out.push_back(std::move(c.path));
  }
  return out;
}

double AcceptanceProcess::tree_tpc_from(const std::vector<RankPath>& nodes, const StateDistribution& start) const {
  return run_tree(*this, index_tree(nodes), start).tpc;
}

StateDistribution AcceptanceProcess::stationary_start(const std::vector<RankPath>& nodes) const {
  if (is_independent()) return {params_.easy_share, 1 - params_.easy_share};
  const IndexedTree t = index_tree(nodes);
  // Iteration-to-iteration chain M: row s is the next start after a start in state s. Its
  // stationary row vector for two states is (m10, m01) / (m01 + m10).
  const StateDistribution from_easy = run_tree(*this, t, {1, 0}).next_start;
  const StateDistribution from_hard = run_tree(*this, t, {0, 1}).next_start;
  const double m01 = from_easy[1], m10 = from_hard[0];
  if (m01 + m10 <= 0) return {params_.easy_share, 1 - params_.easy_share};
  return {m10 / (m01 + m10), m01 / (m01 + m10)};
}

double AcceptanceProcess::tree_tpc(const std::vector<RankPath>& nodes) const {
  const IndexedTree t = index_tree(nodes);
  StateDistribution start{params_.easy_share, 1 - params_.easy_share};
  if (!is_independent()) start = stationary_start(nodes);
  return run_tree(*this, t, start).tpc;
}

double AcceptanceProcess::chain_tpc(int length) const {
  if (length < 0) throw InputError(fmt::format("acceptance process: chain length must be >= 0, got {}", length));
  std::vector<RankPath> chain;
  for (int d = 1; d <= length; ++d) chain.push_back(RankPath(std::size_t(d), 0));
  return tree_tpc(chain);
}

AcceptanceSampler::AcceptanceSampler(AcceptanceProcess process, int top_k, std::uint64_t seed)
    : process_(std::move(process)), top_k_(top_k), rng_(seed) {
  if (top_k < 2) throw InputError(fmt::format("acceptance sampler: top_k must be >= 2, got {}", top_k));
}

ProbabilityPosition AcceptanceSampler::next(int depth) {
  const auto& p = process_.params();
  if (!process_.is_independent()) {
    // One uniform per position: kept with probability lambda, else drawn from (pi, 1 - pi).
    const double u = rng_.uniform();
    if (!started_ || u >= p.persistence) {
      const double v = started_ ? (u - p.persistence) / (1 - p.persistence) : u;
      state_ = v < p.easy_share ? 0 : 1;
    }
    started_ = true;
  } else {
    state_ = p.easy_share > 0 ? 0 : 1;
  }
  const double a = process_.state_alpha(state_, depth);
  ProbabilityPosition pos;
  // Calibrated: p1 ~ Beta(c, 1) (mean a, drawn as U^(1/c)); constant: p1 = a.
  double p1 = a;
  if (p.confidence == DraftConfidence::calibrated && a < 1) p1 = std::pow(rng_.uniform(), (1 - a) / a);
  for (int j = 0; j < top_k_; ++j) pos.top_probs.push_back(rank_probability_given_top1(p1, j, p.rank_tail_shape));
  // The target's token has rank r with probability p (1 - p)^r: p = p1 for a calibrated draw
  // (chosen with probability `calibration`), else the state's alpha (confidence uninformative).
  double p_rank = p1;
  if (p.confidence == DraftConfidence::calibrated && p.calibration < 1 && rng_.uniform() >= p.calibration) p_rank = a;
  const double u = rng_.uniform();
  double acc = 0;
  pos.rank = -1;
  for (int j = 0; j < top_k_; ++j) {
    acc += (j == 0 ? 1.0 : p.lower_rank_share) * rank_probability_given_top1(p_rank, j, p.rank_tail_shape);
    if (u < acc) {
      pos.rank = j;
      break;
    }
  }
  pos.accepted = pos.rank == 0;
  return pos;
}

}  // namespace search
