#pragma once
// The Sequoia-style dynamic programme (Chen et al., "Sequoia", 2024) over a positional
// acceptance vector: if the k-th ranked child of any node is accepted with probability p_k
// given its parent was, the node with rank path r is on the accepted path with probability
// prod_i p_{r_i}, and the expected AAT of a tree is 1 + the sum of those probabilities. The
// programme finds, for every node budget n, the tree of n draft nodes with the largest
// expected AAT:
//     F(m)    = best value of a subtree of m nodes (its root worth 1)  = 1 + H(0, m - 1)
//     H(i, m) = best value of m nodes hung under children of rank >= i
//             = max( H(i+1, m),  max_{1<=j<=m} p_i F(j) + H(i+1, m-j) )
// so expected AAT(n draft nodes) = F(n + 1). It is a baseline the trace-based search is
// measured against: it knows the true model, the trace search only samples of it.
#include <vector>

#include "search/trees/token_tree.hpp"

namespace search {

class SequoiaDp {
 public:
  // Throws models::InputError when `acceptance` is empty or holds values outside [0, 1].
  SequoiaDp(std::vector<double> acceptance, int max_draft_nodes);

  int max_draft_nodes() const { return max_draft_nodes_; }
  // Expected AAT (bonus token included) of the best tree of `draft_nodes` nodes.
  double expected_aat(int draft_nodes) const;
  // That tree.
  TokenTree tree(int draft_nodes) const;

 private:
  void build(TokenTree& tree, TokenTree::Vertex v, int subtree_nodes) const;
  std::vector<double> p_;
  int max_draft_nodes_;
  std::vector<double> f_;                  // F(m), m = 0..max_draft_nodes + 1
  std::vector<std::vector<double>> h_;     // H(i, m), i = 0..K, m = 0..max_draft_nodes
  std::vector<std::vector<int>> choice_;   // nodes given to rank i in H(i, m) (0: none)
};

}  // namespace search
