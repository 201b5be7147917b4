#include "search/window/policy_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "models/config_error.hpp"
#include "models/registry.hpp"

namespace search {

namespace {

struct Entry {
  int order = 0;
  WindowPolicyFactory factory;
};

models::Registry<std::string, Entry>& entries() {
  static models::Registry<std::string, Entry> r("window policies");
  return r;
}

std::vector<std::string> ordered_names() {
  std::vector<std::pair<int, std::string>> keyed;
  for (const auto& [name, e] : entries().entries()) keyed.emplace_back(e->order, name);
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::string> names;
  for (auto& k : keyed) names.push_back(std::move(k.second));
  return names;
}

}  // namespace

WindowPolicyRegistration::WindowPolicyRegistration(const std::string& name, int order, WindowPolicyFactory factory) {
  entries().add(name, {order, std::move(factory)});
}

std::vector<std::string> window_policy_names() { return ordered_names(); }

std::vector<std::unique_ptr<WindowPolicy>> make_window_policies(const std::string& name,
                                                                const WindowPolicyInput& input) {
  const Entry* entry = entries().find(name);
  if (!entry) {
    const auto names = ordered_names();
    throw models::InputError(fmt::format("window policy '{}' is not registered (available: {})", name,
                                         names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
  }
  return entry->factory(input);
}

}  // namespace search
