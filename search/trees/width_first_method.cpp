// width-first (paper 000's width-based baseline): fills the baseline shape level by level.
#include "search/trees/tree_method.hpp"

namespace search {
namespace {

const TreeMethodRegistration width_first_method_registration("width-first", 20, "", [](const TreeMethodInput& in) {
  return std::optional(trees_of(width_first_ranking(in.baseline_shape), in.x_max));
});

}  // namespace
}  // namespace search
