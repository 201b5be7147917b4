#include "models/config_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "models/config_error.hpp"

namespace fs = std::filesystem;

namespace models {

ConfigRegistry::ConfigRegistry(std::string config_dir) : dir_(std::move(config_dir)) {}

std::string ConfigRegistry::default_config_dir() {
  if (const char* env = std::getenv("SPECDSE_CONFIG_DIR"); env && *env) return env;
  return SPECDSE_CONFIG_DIR;
}

std::vector<std::string> ConfigRegistry::names(const std::string& folder) const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(dir_) / folder, ec))
    if (e.path().extension() == ".yaml") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string ConfigRegistry::path(const std::string& folder, const std::string& name) const {
  const fs::path p = fs::path(dir_) / folder / (name + ".yaml");
  if (!fs::exists(p)) {
    // Allow a path to a YAML file as well as a name.
    if (fs::exists(name) && fs::path(name).extension() == ".yaml") return name;
    throw InputError(fmt::format("unknown {} '{}' (no {}); available: {}", folder, name,
                                 p.string(), fmt::join(names(folder), ", ")));
  }
  return p.string();
}

HardwareSpec ConfigRegistry::hardware(const std::string& name) const {
  return load_hardware(path("hardware", name));
}

ModelSpec ConfigRegistry::model(const std::string& name) const {
  return load_model(path("models", name));
}

bool ConfigRegistry::has_algorithm(const std::string& name) const {
  return fs::exists(fs::path(dir_) / "algorithms" / (name + ".yaml"));
}

AlgorithmSpec ConfigRegistry::algorithm(const std::string& name) const {
  if (!has_algorithm(name) && fs::exists(fs::path(dir_) / "models" / (name + ".yaml")))
    return standalone_chain_algorithm(model(name));
  AlgorithmSpec a = load_algorithm(path("algorithms", name));
  if (a.draft.kind == DraftKind::standalone) a.draft.model = model(a.draft.model_name);
  return a;
}

}  // namespace models
