#include "search/trees/sequoia_dp.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/config_error.hpp"

namespace search {

SequoiaDp::SequoiaDp(std::vector<double> acceptance, int max_draft_nodes)
    : p_(std::move(acceptance)), max_draft_nodes_(max_draft_nodes) {
  if (p_.empty()) models::throw_input_error("sequoia-dp", "acceptance vector", "at least one probability", "none");
  for (double v : p_)
    if (!std::isfinite(v) || v < 0 || v > 1)
      models::throw_input_error("sequoia-dp", "acceptance vector", "probabilities in [0, 1]", fmt::format("{}", v));
  if (max_draft_nodes < 0)
    models::throw_input_error("sequoia-dp", "max draft nodes", "a count >= 0", fmt::format("{}", max_draft_nodes));
  const int K = int(p_.size());
  const int N = max_draft_nodes;
  const double impossible = -std::numeric_limits<double>::infinity();
  f_.assign(std::size_t(N) + 2, 0.0);
  h_.assign(std::size_t(K) + 1, std::vector<double>(std::size_t(N) + 1, impossible));
  choice_.assign(std::size_t(K) + 1, std::vector<int>(std::size_t(N) + 1, 0));
  h_[std::size_t(K)][0] = 0;
  f_[1] = 1;
  for (int m = 0; m <= N; ++m) {
    // H(., m) needs F(j) for j <= m, all known: F(m) = 1 + H(0, m - 1) was set last round.
    for (int i = K - 1; i >= 0; --i) {
      double best = h_[std::size_t(i) + 1][std::size_t(m)];
      int best_j = 0;
      for (int j = 1; j <= m; ++j) {
        const double rest = h_[std::size_t(i) + 1][std::size_t(m - j)];
        if (rest == impossible) continue;
        const double value = p_[std::size_t(i)] * f_[std::size_t(j)] + rest;
        if (value > best + 1e-15) {  // strict: fewer nodes to lower ranks on ties (deterministic)
          best = value;
          best_j = j;
        }
      }
      h_[std::size_t(i)][std::size_t(m)] = best;
      choice_[std::size_t(i)][std::size_t(m)] = best_j;
    }
    f_[std::size_t(m) + 1] = 1 + h_[0][std::size_t(m)];
  }
}

double SequoiaDp::expected_aat(int draft_nodes) const {
  if (draft_nodes < 0 || draft_nodes > max_draft_nodes_)
    throw std::out_of_range(fmt::format("sequoia-dp: {} nodes outside 0..{}", draft_nodes, max_draft_nodes_));
  return f_[std::size_t(draft_nodes) + 1];
}

TokenTree SequoiaDp::tree(int draft_nodes) const {
  if (draft_nodes < 0 || draft_nodes > max_draft_nodes_)
    throw std::out_of_range(fmt::format("sequoia-dp: {} nodes outside 0..{}", draft_nodes, max_draft_nodes_));
  TokenTree t;
  build(t, TokenTree::kRoot, draft_nodes + 1);
  return t;
}

void SequoiaDp::build(TokenTree& tree, TokenTree::Vertex v, int subtree_nodes) const {
  int m = subtree_nodes - 1;
  for (int i = 0; i < int(p_.size()) && m > 0; ++i) {
    const int j = choice_[std::size_t(i)][std::size_t(m)];
    if (j == 0) continue;
    build(tree, tree.add_child(v, i), j);
    m -= j;
  }
}

}  // namespace search
