// depth-first (paper 000's depth-based baseline): each node one level below the last where the
// baseline shape allows.
#include "search/trees/tree_method.hpp"

namespace search {
namespace {

const TreeMethodRegistration depth_first_method_registration("depth-first", 30, "", [](const TreeMethodInput& in) {
  return std::optional(trees_of(depth_first_ranking(in.baseline_shape), in.x_max));
});

}  // namespace
}  // namespace search
