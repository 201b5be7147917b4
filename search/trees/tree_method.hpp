#pragma once
// Self-registering token-tree methods (Ramulator 2 style, as models/engine_registry.hpp): each
// method that makes one tree per verification length (prior-score, width-first, depth-first,
// sequoia-dp) lives in its own file under search/trees/ with one static TreeMethodRegistration,
// so a new method is one file plus that one line; `specdse tree-search` iterates the registry.
// The search library is linked whole-archive so the registrations survive.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "search/trees/path_counts.hpp"
#include "search/trees/token_tree.hpp"
#include "search/trees/tree_search.hpp"

namespace search {

// What tree-search has for the methods.
struct TreeMethodInput {
  const PathCounts& train;                          // the training trace, folded
  const TokenTree& baseline_shape;                  // the fixed shape the baselines fill
  const std::vector<double>* acceptance = nullptr;  // positional model p_k, when given
  int x_max = 0;                                    // trees for x = 2..x_max
};

// The method's trees for x = 2, 3, .. (index x - 2; at most x_max - 1 of them, fewer where a
// fixed shape is full), or nullopt when the input lacks what the method needs.
using TreeMethodFunction = std::function<std::optional<std::vector<TokenTree>>(const TreeMethodInput&)>;

struct TreeMethodInfo {
  std::string name;
  int order = 0;      // position in tree-search's output (ascending; ties by name)
  std::string needs;  // the input it needs beyond a trace, as the CLI names it ("" for none)
  TreeMethodFunction build;
};

struct TreeMethodRegistration {
  TreeMethodRegistration(const std::string& name, int order, const std::string& needs, TreeMethodFunction build);
};

// Registered methods in output order.
std::vector<TreeMethodInfo> tree_methods();
// The method `name`; InputError listing the registered methods when there is none.
TreeMethodInfo tree_method(const std::string& name);

// The trees of a ranking's prefixes for x = 2..min(x_max, ranking size + 1).
std::vector<TokenTree> trees_of(const NodeRanking& ranking, int x_max);

}  // namespace search
