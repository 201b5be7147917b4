#include "search/window/policy_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "models/config_error.hpp"

namespace search {

namespace {

struct Entry {
  int order = 0;
  WindowPolicyFactory factory;
};

// Function-local statics: registrations run during static initialisation, in any order.
std::map<std::string, Entry>& entries() {
  static std::map<std::string, Entry> e;
  return e;
}
std::mutex& window_policy_mutex() {
  static std::mutex m;
  return m;
}

std::vector<std::string> ordered_names() {
  std::vector<std::pair<int, std::string>> keyed;
  for (const auto& [name, e] : entries()) keyed.emplace_back(e.order, name);
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::string> names;
  for (auto& k : keyed) names.push_back(std::move(k.second));
  return names;
}

}  // namespace

WindowPolicyRegistration::WindowPolicyRegistration(const std::string& name, int order, WindowPolicyFactory factory) {
  std::lock_guard<std::mutex> lock(window_policy_mutex());
  entries()[name] = {order, std::move(factory)};
}

std::vector<std::string> window_policy_names() {
  std::lock_guard<std::mutex> lock(window_policy_mutex());
  return ordered_names();
}

std::vector<std::unique_ptr<WindowPolicy>> make_window_policies(const std::string& name,
                                                                const WindowPolicyInput& input) {
  WindowPolicyFactory factory;
  {
    std::lock_guard<std::mutex> lock(window_policy_mutex());
    auto it = entries().find(name);
    if (it == entries().end()) {
      const auto names = ordered_names();
      throw models::InputError(fmt::format("window policy '{}' is not registered (available: {})", name,
                                           names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
    }
    factory = it->second.factory;
  }
  return factory(input);
}

}  // namespace search
