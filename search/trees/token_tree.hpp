#pragma once
// A token tree: the draft tokens one verification pass checks, as a Boost.Graph tree whose
// vertex 0 is the root (the last accepted / bonus token) and whose other vertices are draft
// nodes named by rank paths (DESIGN.md: {0, 1} is the root's best child's second-best
// child). Vertices are numbered in insertion order and a vertex is only added under an
// existing parent, so parents always come before their children; that numbering is the row
// / column order of the tree attention mask. x (verification length) = number of vertices.
#include <boost/graph/adjacency_list.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "search/acceptance/trace.hpp"

namespace search {

struct TreeNode {
  int rank = -1;   // rank among its parent's children; -1 for the root
  int depth = 0;   // root 0, its children 1, ...
};
using TreeGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, TreeNode>;

class TokenTree {
 public:
  using Vertex = TreeGraph::vertex_descriptor;
  static constexpr Vertex kRoot = 0;

  TokenTree();  // the root alone (x = 1, autoregressive decoding)

  // From rank paths in any order (they are sorted by length first; the vertex order keeps
  // the given order within a depth). Throws models::InputError naming `source` when the set is not
  // prefix-closed, repeats a path or holds a negative rank.
  static TokenTree from_rank_paths(const std::vector<RankPath>& paths, const std::string& source = "token tree");
  // From the per-depth width notation of the acceptance data ("4 4 3 1" -> {4, 4, 3, 1}): the
  // widths only fix how many nodes each depth has, so the tree is canonical: each depth's
  // nodes are spread evenly over the previous depth's nodes (in their order, earlier parents
  // taking the remainder), children of one parent take ranks 0, 1, ... (the paper's maximal
  // tree "evenly distributed across levels"; {4, 16, 16} = 4 children of the root, 4 under
  // each, then one rank-0 child under each). Throws models::InputError for a negative width
  // or a non-empty depth below an empty one.
  static TokenTree from_widths(const std::vector<int>& widths, const std::string& source = "tree shape");
  // "4 4 3 1" -> {4, 4, 3, 1}; a trailing zero ("1 0", as the data writes a one-node tree) is allowed.
  static std::vector<int> parse_widths(const std::string& text, const std::string& source = "tree shape");

  // Adds the child of `parent` with `rank` (throws std::logic_error if it exists).
  Vertex add_child(Vertex parent, int rank);
  // Adds a node whose parent path is already in the tree (throws InputError otherwise).
  Vertex add_path(const RankPath& path);

  // The child of `parent` with `rank`, or `absent()`.
  Vertex child(Vertex parent, int rank) const;
  Vertex find(const RankPath& path) const;  // absent() when not in the tree
  static Vertex absent() { return boost::graph_traits<TreeGraph>::null_vertex(); }
  bool contains(const RankPath& path) const { return find(path) != absent(); }
  Vertex parent(Vertex v) const;  // absent() for the root

  int verification_length() const { return int(boost::num_vertices(graph_)); }  // x
  int draft_nodes() const { return verification_length() - 1; }
  int depth() const;  // deepest node's depth (0 for the root alone)
  // Nodes per depth 1..depth() (the acceptance data's tree_shape; draft passes' widths).
  std::vector<int> widths_per_depth() const;
  std::string shape_string() const;  // "4 4 3 1"

  RankPath path(Vertex v) const;
  // Non-root nodes' rank paths in vertex order (parents first).
  std::vector<RankPath> rank_paths() const;

  // x × x ancestor-or-self mask, row = query token (vertex), column = key token: mask[i][j] =
  // 1 when vertex j is vertex i or one of its ancestors.
  std::vector<std::vector<std::uint8_t>> attention_mask() const;

  // Tokens of `accepted` (an iteration of a trace) that this tree would have verified: the
  // length of the longest prefix of `accepted` that is a node of the tree.
  int longest_prefix(const RankPath& accepted) const;

  const TreeGraph& graph() const { return graph_; }

 private:
  TreeGraph graph_;
};

// True when every non-empty path's parent path is also in the set and no path repeats.
bool is_prefix_closed(const std::vector<RankPath>& paths);

}  // namespace search
