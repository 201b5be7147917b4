#include "models/device_kind.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <utility>

#include "models/config_error.hpp"

namespace models {

namespace {

// Function-local statics: registrations run during static initialisation, in any order.
// Kinds are never removed, so references handed out stay valid.
std::map<std::string, std::unique_ptr<const DeviceKind>>& kinds() {
  static std::map<std::string, std::unique_ptr<const DeviceKind>> k;
  return k;
}
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

DeviceKindRegistration::DeviceKindRegistration(const std::string& name, std::unique_ptr<const DeviceKind> kind) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  kinds()[name] = std::move(kind);
}

const DeviceKind& device_kind(const std::string& name, const std::string& what) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = kinds().find(name);
  if (it == kinds().end()) {
    std::string known;
    for (const auto& [n, k] : kinds()) known += (known.empty() ? "" : ", ") + n;
    throw InputError(fmt::format("{}: device kind '{}' is not registered (available: {})", what, name,
                                 known.empty() ? "none" : known));
  }
  return *it->second;
}

std::vector<std::string> device_kind_names() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<std::string> names;
  for (const auto& [n, k] : kinds()) names.push_back(n);
  return names;
}

}  // namespace models
