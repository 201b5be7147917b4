#include "experiments/sweep/sweep_spec_file.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"
#include "models/input_file.hpp"
#include "models/yaml_reader.hpp"

namespace experiments {

YAML::Node read_sweep_spec_file(const std::string& path) {
  std::ifstream in = models::open_input_file(path, "sweep spec");
  try {
    YAML::Node root = YAML::Load(in);
    models::check_unique_keys(root, path);
    return root;
  } catch (const YAML::BadFile&) {
    throw models::InputError(fmt::format("{}: cannot open sweep spec", path));
  } catch (const YAML::Exception& e) {
    throw models::InputError(fmt::format("{}: line {}: YAML syntax error: {}", path, e.mark.line + 1, e.msg));
  }
}

}  // namespace experiments
