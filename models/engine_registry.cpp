#include "models/engine_registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "models/config_error.hpp"

namespace models {

namespace {

using Key = std::pair<std::string, std::string>;  // engine name, device kind name

// Function-local statics: registrations run during static initialisation, in any order.
std::map<Key, EngineFactory>& factories() {
  static std::map<Key, EngineFactory> f;
  return f;
}
std::mutex& engine_registry_mutex() {
  static std::mutex m;
  return m;
}

// The kind's own engine of that name, else the one for any kind; null when neither is
// registered. Called with the registry locked.
const EngineFactory* find_factory(const std::string& engine, const std::string& kind) {
  for (const std::string& k : {kind, std::string(kAnyDeviceKind)}) {
    auto it = factories().find({engine, k});
    if (it != factories().end()) return &it->second;
  }
  return nullptr;
}

}  // namespace

EngineRegistration::EngineRegistration(const std::string& engine, const std::string& device_kind,
                                       EngineFactory factory) {
  std::lock_guard<std::mutex> lock(engine_registry_mutex());
  factories()[{engine, device_kind}] = std::move(factory);
}

std::unique_ptr<LatencyEngine> make_engine(const std::string& engine, const HardwareSpec& hw) {
  EngineFactory factory;
  {
    std::lock_guard<std::mutex> lock(engine_registry_mutex());
    if (const EngineFactory* f = find_factory(engine, hw.kind)) factory = *f;
  }
  if (!factory) {
    std::vector<std::string> known;
    for (const auto& name : engine_names())
      if (has_engine(name, hw.kind)) known.push_back(name);
    throw InputError(fmt::format("--engine: '{}' is not available for {} hardware '{}' (available: {})", engine,
                                 hw.kind, hw.name, known.empty() ? "none" : fmt::format("{}", fmt::join(known, ", "))));
  }
  return factory(hw);
}

std::vector<std::string> engine_names() {
  std::lock_guard<std::mutex> lock(engine_registry_mutex());
  std::vector<std::string> names;
  for (const auto& [key, f] : factories()) names.push_back(key.first);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

bool has_engine(const std::string& engine, const std::string& device_kind) {
  std::lock_guard<std::mutex> lock(engine_registry_mutex());
  return find_factory(engine, device_kind) != nullptr;
}

}  // namespace models
