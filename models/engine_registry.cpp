#include "models/engine_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "models/config_error.hpp"

namespace models {

namespace {

using Key = std::pair<std::string, HardwareKind>;

// Function-local statics: registrations run during static initialisation, in any order.
std::map<Key, EngineFactory>& factories() {
  static std::map<Key, EngineFactory> f;
  return f;
}
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

EngineRegistration::EngineRegistration(const std::string& engine, HardwareKind kind, EngineFactory factory) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  factories()[{engine, kind}] = std::move(factory);
}

std::unique_ptr<LatencyEngine> make_engine(const std::string& engine, const HardwareSpec& hw) {
  EngineFactory factory;
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    auto it = factories().find({engine, hw.kind});
    if (it != factories().end()) factory = it->second;
  }
  if (!factory) {
    std::string known;
    for (const auto& [key, f] : factories())
      if (key.second == hw.kind) known += (known.empty() ? "" : ", ") + key.first;
    throw InputError(fmt::format("--engine: '{}' is not available for {} hardware '{}' (available: {})", engine,
                                 to_string(hw.kind), hw.name, known.empty() ? "none" : known));
  }
  return factory(hw);
}

std::vector<std::string> engine_names() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<std::string> names;
  for (const auto& [key, f] : factories()) names.push_back(key.first);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

bool has_engine(const std::string& engine, HardwareKind kind) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  return factories().count({engine, kind}) > 0;
}

}  // namespace models
