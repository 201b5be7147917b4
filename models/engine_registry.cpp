#include "models/engine_registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

#include "models/config_error.hpp"
#include "models/registry.hpp"

namespace models {

namespace {

using Key = std::pair<std::string, std::string>;  // engine name, device kind name

Registry<Key, EngineFactory>& factories() {
  static Registry<Key, EngineFactory> r("latency engines (engine / device kind)");
  return r;
}

// The kind's own engine of that name, else the one for any kind; null when neither is registered.
const EngineFactory* find_factory(const std::string& engine, const std::string& kind) {
  for (const std::string& k : {kind, std::string(kAnyDeviceKind)})
    if (const EngineFactory* f = factories().find({engine, k})) return f;
  return nullptr;
}

}  // namespace

EngineRegistration::EngineRegistration(const std::string& engine, const std::string& device_kind,
                                       EngineFactory factory) {
  factories().add({engine, device_kind}, std::move(factory));
}

std::unique_ptr<LatencyEngine> make_engine(const std::string& engine, const HardwareSpec& hw) {
  const EngineFactory* factory = find_factory(engine, hw.kind);
  if (!factory) {
    std::vector<std::string> known;
    for (const auto& name : engine_names())
      if (has_engine(name, hw.kind)) known.push_back(name);
    throw InputError(fmt::format("--engine: '{}' is not available for {} hardware '{}' (available: {})", engine,
                                 hw.kind, hw.name, known.empty() ? "none" : fmt::format("{}", fmt::join(known, ", "))));
  }
  return (*factory)(hw);
}

std::vector<std::string> engine_names() {
  std::vector<std::string> names;
  for (const auto& key : factories().keys()) names.push_back(key.first);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

bool has_engine(const std::string& engine, const std::string& device_kind) {
  return find_factory(engine, device_kind) != nullptr;
}

}  // namespace models
