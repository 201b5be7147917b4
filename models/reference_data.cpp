#include "models/reference_data.hpp"

namespace models {

std::string reference_path(const std::string& name, const std::string& config_dir) {
  return config_dir + "/reference/" + name + ".yaml";
}

YamlReader open_reference(const std::string& name, const std::string& config_dir) {
  return YamlReader::open(reference_path(name, config_dir));
}

}  // namespace models
