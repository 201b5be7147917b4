// sequoia-dp: the best tree per size under a positional acceptance model
// (search/trees/sequoia_dp.hpp); needs that model.
#include "search/trees/sequoia_dp.hpp"
#include "search/trees/tree_method.hpp"

namespace search {
namespace {

const TreeMethodRegistration sequoia_dp_method_registration(
    "sequoia-dp", 40, "--acceptance-vector",
    [](const TreeMethodInput& in) -> std::optional<std::vector<TokenTree>> {
      if (!in.acceptance) return std::nullopt;
      const SequoiaDp dp(*in.acceptance, in.x_max - 1);
      std::vector<TokenTree> trees;
      for (int x = 2; x <= in.x_max; ++x) trees.push_back(dp.tree(x - 1));
      return trees;
    });

}  // namespace
}  // namespace search
