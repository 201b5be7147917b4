#pragma once
// Published reference values (configs/reference/NAME.yaml): numbers from the papers specdse
// reproduces, kept out of the code so that each file states its source (paper, table or figure,
// what it measures) in its header comment and can be checked against the paper on its own.
// They are read with the strict YamlReader: an unknown or missing key is a one-line error
// naming the file and key. The folder is found like every config: --config-dir, else
// $SPECDSE_CONFIG_DIR, else the source tree's configs/ (models/config_registry.hpp).
#include <string>

#include "models/yaml_reader.hpp"

namespace models {

// configs/reference/NAME.yaml under `config_dir`.
std::string reference_path(const std::string& name, const std::string& config_dir);
// That file, opened (InputError naming the path when it is missing or malformed).
YamlReader open_reference(const std::string& name, const std::string& config_dir);

}  // namespace models
