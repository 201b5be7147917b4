#pragma once
// Token trees under the positional acceptance model (paper 004's trees): the full trees
// D_m-BF_n, the pruned trees N_i grown by prior score, and a tree's expected tokens per call.
//
// Layering (why this is here and not in search/acceptance/): acceptance is the lower layer, it
// says which rank paths the target accepts (traces, acceptance models over RankPath) and knows
// nothing of trees; search/trees/ builds and scores trees from it. Tree code includes
// acceptance headers, never the reverse.
#include <functional>
#include <vector>

#include "search/acceptance/positional_acceptance.hpp"
#include "search/trees/token_tree.hpp"

namespace search {

// Expected tokens per call of `tree`: 1 + the sum over its nodes of their path probabilities
// (siblings are disjoint events).
double tree_tpc(const PositionalAcceptance& model, const TokenTree& tree);

// Full tree D_m-BF_n: every node down to depth m has n children (ranks 0..n-1).
TokenTree full_tree(int depth, int branching);
// The `nodes` rank paths of highest `score`, best first, grown from the root so that every prefix
// of the list is prefix-closed: a taken path's next sibling and first child enter the frontier,
// so `score` must not rise from a path to its child or to its next sibling (a path probability
// under a rank law that does not rise with rank). Children ranks < max_branching, depth <=
// max_depth; ties break on the lexicographically smaller rank path. Fewer paths when the limits
// hold fewer.
std::vector<RankPath> most_probable_paths(const std::function<double(const RankPath&)>& score, int nodes, int max_depth,
                                          int max_branching);
// Pruned tree N_i: the i draft nodes of highest prior score (path probability under `model`),
// most_probable_paths under it. InputError when the limits hold fewer than i nodes.
TokenTree pruned_tree(const PositionalAcceptance& model, int nodes, int max_depth, int max_branching);

}  // namespace search
