#include "search/trees/tree_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "models/config_error.hpp"

namespace search {

TokenTree NodeRanking::tree(int draft_nodes) const {
  if (draft_nodes < 0 || draft_nodes > size())
    throw std::out_of_range(fmt::format("{} ranking: {} nodes asked, {} ranked", method, draft_nodes, size()));
  return TokenTree::from_rank_paths(std::vector<RankPath>(paths.begin(), paths.begin() + draft_nodes), method);
}

std::vector<int> NodeRanking::depths() const {
  std::vector<int> d(paths.size() + 1, 0);
  for (std::size_t i = 0; i < paths.size(); ++i) d[i + 1] = std::max(d[i], int(paths[i].size()));
  return d;
}

namespace {

// Completes `ranking` to `target` nodes with nodes outside it: repeatedly the child with the
// smallest missing rank, under the earliest node (root first, then ranking order) that has
// the smallest such rank, no deeper than max_depth (0: unbounded).
void pad_ranking(NodeRanking& ranking, int target, int max_depth) {
  if (ranking.size() >= target) return;
  TokenTree tree = TokenTree::from_rank_paths(ranking.paths, ranking.method);
  std::vector<TokenTree::Vertex> order{TokenTree::kRoot};
  for (const auto& p : ranking.paths) order.push_back(tree.find(p));
  while (ranking.size() < target) {
    int best_rank = -1;
    TokenTree::Vertex best_parent = TokenTree::absent();
    for (auto v : order) {
      if (max_depth > 0 && tree.graph()[v].depth >= max_depth) continue;
      int r = 0;
      while (tree.child(v, r) != TokenTree::absent()) ++r;
      if (best_rank < 0 || r < best_rank) {
        best_rank = r;
        best_parent = v;
      }
    }
    const auto added = tree.add_child(best_parent, best_rank);
    order.push_back(added);
    ranking.paths.push_back(tree.path(added));
  }
}

}  // namespace

namespace {

// Prior-score order: a parent's count is at least its child's, and on a tie the shallower node
// wins, so a child never precedes its parent and every prefix of the order is a tree.
// (Holds references only: the sorts copy their comparator.)
struct PriorScoreBetter {
  const PathCounts& train;
  const std::vector<std::int32_t>& lex;  // PathCounts::lexicographic_order()
  bool operator()(PathCounts::NodeId a, PathCounts::NodeId b) const {
    if (train.count(a) != train.count(b)) return train.count(a) > train.count(b);
    if (train.depth(a) != train.depth(b)) return train.depth(a) < train.depth(b);
    return lex[std::size_t(a)] < lex[std::size_t(b)];
  }
};

NodeRanking ranking_from(const PathCounts& train, const std::vector<PathCounts::NodeId>& best_first,
                         int max_draft_nodes, int max_depth) {
  NodeRanking ranking;
  ranking.method = "prior-score";
  ranking.paths.reserve(std::size_t(max_draft_nodes));
  for (auto v : best_first) {
    if (ranking.size() == max_draft_nodes) break;
    if (max_depth <= 0 || train.depth(v) <= max_depth) ranking.paths.push_back(train.path(v));
  }
  pad_ranking(ranking, max_draft_nodes, max_depth);
  return ranking;
}

}  // namespace

NodeRanking prior_score_ranking(const PathCounts& train, int max_draft_nodes, int max_depth) {
  if (max_draft_nodes < 0) throw std::invalid_argument("prior_score_ranking: negative node count");
  std::vector<PathCounts::NodeId> nodes;
  nodes.reserve(train.node_count());
  for (PathCounts::NodeId v = 1; v < PathCounts::NodeId(train.node_count()); ++v)
    if (max_depth <= 0 || train.depth(v) <= max_depth) nodes.push_back(v);
  // Only the best max_draft_nodes need ordering.
  const std::size_t keep = std::min<std::size_t>(nodes.size(), std::size_t(max_draft_nodes));
  const auto lex = train.lexicographic_order();
  std::partial_sort(nodes.begin(), nodes.begin() + std::ptrdiff_t(keep), nodes.end(), PriorScoreBetter{train, lex});
  nodes.resize(keep);
  return ranking_from(train, nodes, max_draft_nodes, max_depth);
}

PriorScoreOrder::PriorScoreOrder(const PathCounts& train) : train_(train) {
  order_.reserve(train.node_count());
  for (PathCounts::NodeId v = 1; v < PathCounts::NodeId(train.node_count()); ++v) order_.push_back(v);
  const auto lex = train.lexicographic_order();
  std::sort(order_.begin(), order_.end(), PriorScoreBetter{train, lex});
}

NodeRanking PriorScoreOrder::ranking(int max_draft_nodes, int max_depth) const {
  if (max_draft_nodes < 0) throw std::invalid_argument("prior_score_ranking: negative node count");
  return ranking_from(train_, order_, max_draft_nodes, max_depth);
}

NodeRanking width_first_ranking(const TokenTree& shape) {
  // from_widths numbers vertices depth by depth, lexicographically within a depth; sort anyway
  // so any tree works as the shape.
  std::vector<RankPath> paths = shape.rank_paths();
  std::stable_sort(paths.begin(), paths.end(), [](const RankPath& a, const RankPath& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return NodeRanking{"width-first", std::move(paths)};
}

NodeRanking depth_first_ranking(const TokenTree& shape) {
  const auto& g = shape.graph();
  const int levels = shape.depth();
  // Each level's nodes in lexicographic order.
  std::vector<std::vector<TokenTree::Vertex>> by_level(std::size_t(levels) + 1);
  {
    std::vector<std::pair<RankPath, TokenTree::Vertex>> all;
    for (auto [v, end] = boost::vertices(g); v != end; ++v)
      if (*v != TokenTree::kRoot) all.emplace_back(shape.path(*v), *v);
    std::sort(all.begin(), all.end());
    for (const auto& [p, v] : all) by_level[p.size()].push_back(v);
  }
  std::vector<char> used(boost::num_vertices(g), 0);
  used[TokenTree::kRoot] = 1;
  auto available = [&](TokenTree::Vertex v) { return !used[v] && used[shape.parent(v)]; };
  auto first_available_at = [&](int level) -> TokenTree::Vertex {
    if (level < 1 || level > levels) return TokenTree::absent();
    for (auto v : by_level[std::size_t(level)])
      if (available(v)) return v;
    return TokenTree::absent();
  };
  NodeRanking ranking;
  ranking.method = "depth-first";
  TokenTree::Vertex prev = TokenTree::kRoot;
  const int total = shape.draft_nodes();
  for (int k = 0; k < total; ++k) {
    TokenTree::Vertex next = TokenTree::absent();
    // Under the previous node first (its lowest free rank), else elsewhere on the next level.
    std::vector<std::pair<int, TokenTree::Vertex>> kids;
    for (auto [e, end] = boost::out_edges(prev, g); e != end; ++e)
      if (!used[boost::target(*e, g)]) kids.emplace_back(g[boost::target(*e, g)].rank, boost::target(*e, g));
    if (!kids.empty()) next = std::min_element(kids.begin(), kids.end())->second;
    if (next == TokenTree::absent()) next = first_available_at(g[prev].depth + 1);
    for (int level = 1; next == TokenTree::absent() && level <= levels; ++level) next = first_available_at(level);
    used[next] = 1;
    ranking.paths.push_back(shape.path(next));
    prev = next;
  }
  return ranking;
}

std::vector<double> nested_aat(const NodeRanking& ranking, const PathCounts& trace) {
  if (trace.lines() == 0) models::throw_input_error("trace", "iterations", "at least one trace line", "none");
  std::vector<double> aat(ranking.paths.size() + 1);
  std::int64_t accepted = 0;
  aat[0] = 1;
  for (std::size_t i = 0; i < ranking.paths.size(); ++i) {
    accepted += trace.count(ranking.paths[i]);
    aat[i + 1] = 1 + double(accepted) / double(trace.lines());
  }
  return aat;
}

double tree_aat(const TokenTree& tree, const PathCounts& trace) {
  if (trace.lines() == 0) models::throw_input_error("trace", "iterations", "at least one trace line", "none");
  // Walk tree and trie together; a tree node the trace never reached adds nothing.
  std::int64_t accepted = 0;
  const auto& g = tree.graph();
  std::vector<std::pair<TokenTree::Vertex, PathCounts::NodeId>> stack{{TokenTree::kRoot, PathCounts::kRoot}};
  while (!stack.empty()) {
    const auto [v, node] = stack.back();
    stack.pop_back();
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      const auto c = boost::target(*e, g);
      const auto trie_child = trace.child(node, g[c].rank);
      if (trie_child == PathCounts::kAbsent) continue;
      accepted += trace.count(trie_child);
      stack.emplace_back(c, trie_child);
    }
  }
  return 1 + double(accepted) / double(trace.lines());
}

double tree_aat_streaming(const TokenTree& tree, TraceReader& reader) {
  RankPath accepted;
  std::int64_t lines = 0, tokens = 0;
  while (reader.next(accepted)) {
    ++lines;
    tokens += tree.longest_prefix(accepted);
  }
  if (lines == 0) models::throw_input_error(reader.source(), "iterations", "at least one trace line", "none");
  return 1 + double(tokens) / double(lines);
}

}  // namespace search
