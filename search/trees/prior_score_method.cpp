// prior-score (paper 000 §III-C): the trace's most often accepted nodes, best first
// (search/trees/tree_search.hpp).
#include "search/trees/tree_method.hpp"

namespace search {
namespace {

const TreeMethodRegistration prior_score_method_registration("prior-score", 10, "", [](const TreeMethodInput& in) {
  return std::optional(trees_of(prior_score_ranking(in.train, in.x_max - 1), in.x_max));
});

}  // namespace
}  // namespace search
