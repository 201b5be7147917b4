#include "search/trees/tree_method.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "models/config_error.hpp"
#include "models/registry.hpp"

namespace search {

namespace {

models::Registry<std::string, TreeMethodInfo>& methods() {
  static models::Registry<std::string, TreeMethodInfo> r("tree methods");
  return r;
}

std::vector<TreeMethodInfo> ordered() {
  std::vector<TreeMethodInfo> all = methods().values();
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
  return all;
}

}  // namespace

TreeMethodRegistration::TreeMethodRegistration(const std::string& name, int order, const std::string& needs,
                                               TreeMethodFunction build) {
  methods().add(name, {name, order, needs, std::move(build)});
}

std::vector<TreeMethodInfo> tree_methods() { return ordered(); }

TreeMethodInfo tree_method(const std::string& name) {
  if (const auto* info = methods().find(name)) return *info;
  std::string known;
  for (const auto& m : ordered()) known += (known.empty() ? "" : ", ") + m.name;
  throw models::InputError(
      fmt::format("tree method '{}' is not registered (available: {})", name, known.empty() ? "none" : known));
}

std::vector<TokenTree> trees_of(const NodeRanking& ranking, int x_max) {
  std::vector<TokenTree> trees;
  for (int x = 2; x <= std::min(x_max, ranking.size() + 1); ++x) trees.push_back(ranking.tree(x - 1));
  return trees;
}

}  // namespace search
