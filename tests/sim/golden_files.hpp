#pragma once
// The measurements shipped in notebooks_out/golden/ (CSVs from lent GPUs: cuda/run_goldens.sh,
// cuda/run_hf_generate.sh, cuda/run_host_device_overlap.sh, ...), found beside the config folder.
#include <filesystem>
#include <string>

#include "models/config_registry.hpp"

namespace golden_files {

inline std::string measured(const std::string& name) {
  return (std::filesystem::path(models::ConfigRegistry::default_config_dir()).parent_path() / "notebooks_out" /
          "golden" / name)
      .string();
}

}  // namespace golden_files
