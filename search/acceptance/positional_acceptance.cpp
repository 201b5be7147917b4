#include "search/acceptance/positional_acceptance.hpp"

#include <cmath>
#include <algorithm>
#include <queue>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/config_error.hpp"

namespace search {
namespace {

// A per-depth acceptance of 1 would make deep trees free tokens; no measured draft is that good.
constexpr double kAlphaCap = 0.99;

struct Table1Row {
  const char* model;
  double own_chain3;       // paper 004 Table 1, "<model> w/ EAGLE (Ours)", length 3, MT-Bench
  double table2_bf16;      // paper 004 Table 2, BF16 column (kept for comparison only)
};
// Paper 004 Table 1 / Table 2. Llama3.3-70B in the paper has the Llama-3.1-70B shape.
const Table1Row kRows[] = {
    {"llama-3.1-8b-instruct", 2.78, 2.79},
    {"llama-3.1-70b", 2.94, 2.95},
    {"llama-4-scout", 2.87, 2.86},
    {"llama-4-maverick", 2.75, 2.81},
};
// Paper 004 Table 1, EAGLE-3 rows (Li et al. 2025, vLLM): chain TPC at lengths 3/5/7.
const std::vector<ChainTpcPoint> kEagle3_8b = {{3, 2.80}, {5, 3.32}, {7, 3.57}};
const std::vector<ChainTpcPoint> kEagle3_70b = {{3, 2.64}, {5, 3.03}, {7, 3.20}};

double chain_tpc_of(double level, double decay, int length) {
  double tpc = 1, p = 1;
  for (int d = 1; d <= length; ++d) {
    p *= std::min(level * std::pow(decay, d - 1), kAlphaCap);
    tpc += p;
  }
  return tpc;
}

}  // namespace

PositionalAcceptance::PositionalAcceptance(double level, double decay, std::string source)
    : level_(level), decay_(decay), source_(std::move(source)) {
  if (!(level > 0 && level <= 1) || !(decay > 0))
    throw models::InputError(fmt::format("positional acceptance: level must be in (0, 1] and decay > 0, got {} and {}", level, decay));
}

double PositionalAcceptance::alpha(int depth) const {
  if (depth < 1) throw models::InputError(fmt::format("positional acceptance: depth must be >= 1, got {}", depth));
  return std::min(level_ * std::pow(decay_, depth - 1), kAlphaCap);
}

double PositionalAcceptance::rank_probability(int depth, int rank) const {
  if (rank < 0) throw models::InputError(fmt::format("positional acceptance: rank must be >= 0, got {}", rank));
  const double a = alpha(depth);
  return a * std::pow(1 - a, rank);
}

double PositionalAcceptance::path_probability(const RankPath& path) const {
  double p = 1;
  for (std::size_t i = 0; i < path.size(); ++i) p *= rank_probability(int(i) + 1, path[i]);
  return p;
}

double PositionalAcceptance::chain_tpc(int length) const { return chain_tpc_of(level_, decay_, length); }

double PositionalAcceptance::tree_tpc(const TokenTree& tree) const {
  double tpc = 1;
  for (const RankPath& path : tree.rank_paths()) tpc += path_probability(path);
  return tpc;
}

double solve_level(double decay, const ChainTpcPoint& point) {
  if (point.length < 1 || !(point.tpc >= 1) || point.tpc >= chain_tpc_of(1.0, decay, point.length))
    throw models::InputError(fmt::format("positional acceptance: chain TPC {} at length {} is not reachable (expected in [1, {:.3f}))",
                                         point.tpc, point.length, chain_tpc_of(1.0, decay, point.length)));
  double lo = 0, hi = 1;
  for (int i = 0; i < 80; ++i) {
    const double mid = 0.5 * (lo + hi);
    (chain_tpc_of(mid, decay, point.length) < point.tpc ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double fit_decay(const std::vector<ChainTpcPoint>& points) {
  if (points.size() < 2) throw models::InputError("positional acceptance: fitting a decay needs at least two chain TPCs");
  double best = 0, best_err = INFINITY;
  for (int i = 0; i <= 500; ++i) {
    const double decay = 0.80 + 0.001 * i;
    double level;
    try {
      level = solve_level(decay, points[0]);
    } catch (const models::InputError&) {
      continue;
    }
    double err = 0;
    for (std::size_t j = 1; j < points.size(); ++j) {
      const double e = chain_tpc_of(level, decay, points[j].length) - points[j].tpc;
      err += e * e;
    }
    if (err < best_err) best_err = err, best = decay;
  }
  return best;
}

std::vector<std::string> paper004_models() {
  std::vector<std::string> names;
  for (const auto& r : kRows) names.push_back(r.model);
  return names;
}

static const Table1Row& row_of(const std::string& model) {
  for (const auto& r : kRows)
    if (model == r.model) return r;
  throw models::InputError(fmt::format("positional acceptance: no paper 004 figures for model '{}' (known: {})",
                                       model, fmt::join(paper004_models(), ", ")));
}

double paper004_table2_tpc(const std::string& model) { return row_of(model).table2_bf16; }

PositionalAcceptance paper004_acceptance(const std::string& model) {
  const Table1Row& row = row_of(model);
  const std::string m = row.model;
  double decay;
  std::string from;
  if (m == "llama-3.1-8b-instruct") {
    decay = fit_decay(kEagle3_8b);
    from = "EAGLE-3 8B";
  } else if (m == "llama-3.1-70b") {
    decay = fit_decay(kEagle3_70b);
    from = "EAGLE-3 70B";
  } else {
    decay = 0.5 * (fit_decay(kEagle3_8b) + fit_decay(kEagle3_70b));
    from = "mean of EAGLE-3 8B/70B";
  }
  const double level = solve_level(decay, {3, row.own_chain3});
  return PositionalAcceptance(level, decay,
                              fmt::format("paper 004 Table 1: decay from {} chains 3/5/7, level from own chain-3 TPC {}",
                                          from, row.own_chain3));
}

TokenTree full_tree(int depth, int branching) {
  if (depth < 1 || branching < 1)
    throw models::InputError(fmt::format("full tree D{}-BF{}: depth and branching must be >= 1", depth, branching));
  std::vector<RankPath> paths, frontier = {RankPath{}};
  for (int d = 1; d <= depth; ++d) {
    std::vector<RankPath> next;
    for (const auto& p : frontier)
      for (int r = 0; r < branching; ++r) {
        RankPath c = p;
        c.push_back(r);
        next.push_back(c);
      }
    paths.insert(paths.end(), next.begin(), next.end());
    frontier = std::move(next);
  }
  return TokenTree::from_rank_paths(paths, fmt::format("D{}-BF{}", depth, branching));
}

TokenTree pruned_tree(const PositionalAcceptance& model, int nodes, int max_depth, int max_branching) {
  if (nodes < 1 || max_depth < 1 || max_branching < 1)
    throw models::InputError(fmt::format("pruned tree N{}: nodes, depth and branching must be >= 1", nodes));
  struct Cand {
    double score;
    RankPath path;
    bool operator<(const Cand& o) const {  // max-heap on score, then smaller path first
      if (score != o.score) return score < o.score;
      return o.path < path;
    }
  };
  std::priority_queue<Cand> frontier;
  frontier.push({model.path_probability({0}), {0}});
  std::vector<RankPath> chosen;
  while (int(chosen.size()) < nodes && !frontier.empty()) {
    Cand c = frontier.top();
    frontier.pop();
    chosen.push_back(c.path);
    if (c.path.back() + 1 < max_branching) {  // next sibling
      RankPath s = c.path;
      ++s.back();
      frontier.push({model.path_probability(s), s});
    }
    if (int(c.path.size()) < max_depth) {  // first child
      RankPath k = c.path;
      k.push_back(0);
      frontier.push({model.path_probability(k), k});
    }
  }
  if (int(chosen.size()) < nodes)
    throw models::InputError(fmt::format("pruned tree N{}: a draft of depth {} and branching {} has only {} nodes",
                                         nodes, max_depth, max_branching, chosen.size()));
  return TokenTree::from_rank_paths(chosen, fmt::format("N{}", nodes));
}

}  // namespace search
