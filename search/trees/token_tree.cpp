#include "search/trees/token_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

#include "models/config_error.hpp"

namespace search {

TokenTree::TokenTree() { boost::add_vertex(TreeNode{-1, 0}, graph_); }

TokenTree TokenTree::from_rank_paths(const std::vector<RankPath>& paths, const std::string& source) {
  std::vector<RankPath> sorted = paths;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const RankPath& a, const RankPath& b) { return a.size() < b.size(); });
  TokenTree tree;
  for (const auto& p : sorted) {
    if (p.empty()) continue;  // the root is always there
    for (int r : p)
      if (r < 0)
        models::throw_input_error(source, "rank path", "non-negative ranks", "'" + format_rank_path(p) + "'");
    if (tree.contains(p))
      models::throw_input_error(source, "rank path", "each node once", "'" + format_rank_path(p) + "' twice");
    tree.add_path(p);
  }
  return tree;
}

std::vector<int> TokenTree::parse_widths(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  std::vector<int> widths;
  std::string token;
  while (in >> token) {
    std::size_t used = 0;
    int w = -1;
    try {
      w = std::stoi(token, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != token.size() || w < 0)
      models::throw_input_error(source, "tree_shape", "non-negative node counts per depth like '4 4 3 1'",
                                "'" + text + "'");
    widths.push_back(w);
  }
  while (!widths.empty() && widths.back() == 0) widths.pop_back();
  for (int w : widths)
    if (w == 0)
      models::throw_input_error(source, "tree_shape", "no empty depth above a non-empty one", "'" + text + "'");
  return widths;
}

TokenTree TokenTree::from_widths(const std::vector<int>& widths, const std::string& source) {
  TokenTree tree;
  std::vector<Vertex> level{kRoot};
  for (std::size_t d = 0; d < widths.size(); ++d) {
    const int w = widths[d];
    if (w < 0) models::throw_input_error(source, "tree_shape", "non-negative widths", fmt::format("{}", w));
    if (w > 0 && level.empty())
      models::throw_input_error(source, "tree_shape", "no empty depth above a non-empty one",
                                fmt::format("width {} at depth {}", w, d + 1));
    std::vector<Vertex> next;
    const int parents = int(level.size());
    for (int i = 0; i < parents && w > 0; ++i) {
      const int kids = w / parents + (i < w % parents ? 1 : 0);
      for (int r = 0; r < kids; ++r) next.push_back(tree.add_child(level[std::size_t(i)], r));
    }
    // Keep the depth's vertices in rank-path (lexicographic) order for the next depth.
    level = std::move(next);
  }
  return tree;
}

TokenTree::Vertex TokenTree::add_child(Vertex parent, int rank) {
  if (child(parent, rank) != absent())
    throw std::logic_error(fmt::format("token tree: node '{} {}' added twice", format_rank_path(path(parent)), rank));
  const Vertex v = boost::add_vertex(TreeNode{rank, graph_[parent].depth + 1}, graph_);
  boost::add_edge(parent, v, graph_);
  return v;
}

TokenTree::Vertex TokenTree::add_path(const RankPath& p) {
  if (p.empty()) throw std::logic_error("token tree: the root cannot be added");
  const RankPath parent_path(p.begin(), p.end() - 1);
  const Vertex parent = find(parent_path);
  if (parent == absent())
    models::throw_input_error("token tree", "rank path", "a prefix-closed set (parent present)",
                              "'" + format_rank_path(p) + "' without '" + format_rank_path(parent_path) + "'");
  return add_child(parent, p.back());
}

TokenTree::Vertex TokenTree::child(Vertex parent, int rank) const {
  for (auto [e, end] = boost::out_edges(parent, graph_); e != end; ++e) {
    const Vertex c = boost::target(*e, graph_);
    if (graph_[c].rank == rank) return c;
  }
  return absent();
}

TokenTree::Vertex TokenTree::find(const RankPath& p) const {
  Vertex v = kRoot;
  for (int r : p) {
    v = child(v, r);
    if (v == absent()) return absent();
  }
  return v;
}

TokenTree::Vertex TokenTree::parent(Vertex v) const {
  auto [e, end] = boost::in_edges(v, graph_);
  return e == end ? absent() : boost::source(*e, graph_);
}

int TokenTree::depth() const {
  int d = 0;
  for (auto [v, end] = boost::vertices(graph_); v != end; ++v) d = std::max(d, graph_[*v].depth);
  return d;
}

std::vector<int> TokenTree::widths_per_depth() const {
  std::vector<int> widths(std::size_t(depth()), 0);
  for (auto [v, end] = boost::vertices(graph_); v != end; ++v)
    if (graph_[*v].depth > 0) ++widths[std::size_t(graph_[*v].depth - 1)];
  return widths;
}

std::string TokenTree::shape_string() const {
  std::string s;
  for (int w : widths_per_depth()) s += (s.empty() ? "" : " ") + std::to_string(w);
  return s;
}

RankPath TokenTree::path(Vertex v) const {
  RankPath p(std::size_t(graph_[v].depth));
  for (Vertex u = v; u != kRoot; u = parent(u)) p[std::size_t(graph_[u].depth - 1)] = graph_[u].rank;
  return p;
}

std::vector<RankPath> TokenTree::rank_paths() const {
  std::vector<RankPath> out;
  for (auto [v, end] = boost::vertices(graph_); v != end; ++v)
    if (*v != kRoot) out.push_back(path(*v));
  return out;
}

std::vector<std::vector<std::uint8_t>> TokenTree::attention_mask() const {
  const std::size_t x = boost::num_vertices(graph_);
  std::vector<std::vector<std::uint8_t>> mask(x, std::vector<std::uint8_t>(x, 0));
  for (std::size_t i = 0; i < x; ++i)
    for (Vertex u = i; u != absent(); u = parent(u)) mask[i][u] = 1;
  return mask;
}

int TokenTree::longest_prefix(const RankPath& accepted) const {
  Vertex v = kRoot;
  int n = 0;
  for (int r : accepted) {
    v = child(v, r);
    if (v == absent()) break;
    ++n;
  }
  return n;
}

bool is_prefix_closed(const std::vector<RankPath>& paths) {
  std::set<RankPath> all(paths.begin(), paths.end());
  if (all.size() != paths.size()) return false;
  for (const auto& p : paths) {
    if (p.empty()) continue;
    const RankPath parent(p.begin(), p.end() - 1);
    if (!parent.empty() && !all.count(parent)) return false;
  }
  return true;
}

}  // namespace search
