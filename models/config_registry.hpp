#pragma once
// Finds configs by name: configs/hardware/<name>.yaml, configs/models/<name>.yaml,
// configs/algorithms/<name>.yaml. The config folder is --config-dir, else $SPECDSE_CONFIG_DIR,
// else the source tree's configs/ (compiled in). Model names may carry a weight-format suffix:
// `llama-68m@q5_k_m`.
#include <string>
#include <vector>

#include "models/algorithm_spec.hpp"
#include "models/hardware_spec.hpp"
#include "models/model_spec.hpp"

namespace models {

class ConfigRegistry {
 public:
  explicit ConfigRegistry(std::string config_dir = default_config_dir());
  static std::string default_config_dir();

  // A board by name or path. A file that keeps a shipped board's `name:` is labelled by its file
  // (label(): its stem, or the path when the stem is shipped too); models and systems likewise.
  HardwareSpec hardware(const std::string& name) const;
  // A model config by name; `NAME@FORMAT` (e.g. "llama-68m@q5_k_m") loads NAME with its
  // weights in FORMAT (models/weight_format.hpp) instead of the YAML's own format.
  ModelSpec model(const std::string& name) const;
  bool has_model(const std::string& name) const;
  // An algorithm config by name; a standalone draft model name gives a chain algorithm.
  AlgorithmSpec algorithm(const std::string& name) const;
  bool has_algorithm(const std::string& name) const;

  std::vector<std::string> names(const std::string& folder) const;  // sorted
  std::string path(const std::string& folder, const std::string& name) const;
  // The name a config loaded from `file` goes by: `declared` (its `name:`), unless a shipped
  // config of `folder` has that name and `file` is not it (a copy being edited, or another file
  // that took a shipped name): then its file's stem, or the path when the stem is shipped too,
  // so that its rows are never read as the shipped config's.
  std::string label(const std::string& folder, const std::string& file, const std::string& declared) const;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace models
