#include "search/trees/positional_trees.hpp"

#include <queue>
#include <utility>

#include <fmt/format.h>

#include "models/config_error.hpp"

namespace search {

double tree_tpc(const PositionalAcceptance& model, const TokenTree& tree) {
  double tpc = 1;
  for (const RankPath& path : tree.rank_paths()) tpc += model.path_probability(path);
  return tpc;
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

std::vector<RankPath> most_probable_paths(const std::function<double(const RankPath&)>& score, int nodes, int max_depth,
                                          int max_branching) {
  struct Cand {
    double score;
    RankPath path;
    bool operator<(const Cand& o) const {  // max-heap on score, then smaller path first
      if (score != o.score) return score < o.score;
      return o.path < path;
    }
  };
  std::priority_queue<Cand> frontier;
  frontier.push({score({0}), {0}});
  std::vector<RankPath> chosen;
  while (int(chosen.size()) < nodes && !frontier.empty()) {
    Cand c = frontier.top();
    frontier.pop();
    chosen.push_back(c.path);
    if (c.path.back() + 1 < max_branching) {  // next sibling
      RankPath s = c.path;
      ++s.back();
      frontier.push({score(s), s});
    }
    if (int(c.path.size()) < max_depth) {  // first child
      RankPath k = c.path;
      k.push_back(0);
      frontier.push({score(k), k});
    }
  }
  return chosen;
}

TokenTree pruned_tree(const PositionalAcceptance& model, int nodes, int max_depth, int max_branching) {
  if (nodes < 1 || max_depth < 1 || max_branching < 1)
    throw models::InputError(fmt::format("pruned tree N{}: nodes, depth and branching must be >= 1", nodes));
  const std::vector<RankPath> chosen = most_probable_paths(
      [&](const RankPath& path) { return model.path_probability(path); }, nodes, max_depth, max_branching);
  if (int(chosen.size()) < nodes)
    throw models::InputError(fmt::format("pruned tree N{}: a draft of depth {} and branching {} has only {} nodes",
                                         nodes, max_depth, max_branching, chosen.size()));
  return TokenTree::from_rank_paths(chosen, fmt::format("N{}", nodes));
}

}  // namespace search
