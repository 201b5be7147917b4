// A hardware config with a sweep point's overrides of numeric keys (memory.bandwidth_gbs, ...)
// applied before it is validated (declared in sweep_runner.hpp).
#include "experiments/sweep/sweep_runner.hpp"
#include "experiments/sweep/sweep_spec.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <exception>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/closest_name.hpp"
#include "models/config_error.hpp"
#include "models/yaml_reader.hpp"
#include "models/input_file.hpp"
#include "models/hardware_spec.hpp"

namespace experiments {

models::HardwareSpec load_hardware_with_overrides(
    const std::string& path, const std::vector<std::pair<std::string, std::string>>& overrides,
    const std::string& context) {
  if (overrides.empty()) return models::load_hardware(path);
  std::ifstream in = models::open_input_file(path, "hardware");
  YAML::Node root;
  try {
    root = YAML::Load(in);
  } catch (const YAML::Exception& e) {
    throw models::InputError(fmt::format("{}: cannot parse: {}", path, e.what()));
  }
  models::check_unique_keys(root, path);
  std::string what;
  for (const auto& [key, value] : overrides) {
    YAML::Node cur;
    cur.reset(root);
    std::string walked;
    std::istringstream parts(key);
    std::string part;
    while (std::getline(parts, part, '.')) {
      walked += (walked.empty() ? "" : ".") + part;
      if (!cur.IsMap() || !cur[part]) {
        // The closest key at this level of the board's file ("memory.bandwith_gbs").
        std::vector<std::string> here;
        if (cur.IsMap())
          for (const auto& kv : cur)
            if (kv.first.IsScalar()) here.push_back(kv.first.Scalar());
        // At the top level the key may also be a misspelt workload axis ("taks").
        const std::string prefix = walked.substr(0, walked.size() - part.size());
        if (prefix.empty()) here.insert(here.end(), workload_fields().begin(), workload_fields().end());
        const std::string guess = models::closest_name(part, here);
        std::string hint;
        if (!guess.empty())
          hint = prefix.empty() && is_workload_field(guess) ? fmt::format(" (did you mean the axis '{}'?)", guess)
                                                            : fmt::format(" (did you mean '{}{}'?)", prefix, guess);
        throw models::InputError(fmt::format("{}: {}: expected a numeric key of {}, got no key {}{}", context, key,
                                             path, walked, hint));
      }
      YAML::Node next = cur[part];
      cur.reset(next);
    }
    if (!cur.IsScalar())
      throw models::InputError(fmt::format("{}: {}: expected a numeric key of {}, got a {}", context, key, path,
                                           cur.IsMap() ? "map" : "list"));
    try {
      std::size_t used = 0;
      std::stod(cur.Scalar(), &used);
      if (used != cur.Scalar().size()) throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw models::InputError(fmt::format("{}: {}: expected a numeric key of {}, got '{}'", context, key, path,
                                           cur.Scalar()));
    }
    cur = value;  // assigns through the reference into the loaded tree
    what += fmt::format("{}{}={}", what.empty() ? "" : ", ", key, value);
  }
  // Loaded from the edited tree in memory (no temporary file to name in errors or to need a
  // writable TMPDIR for); errors name the board's file with the overrides.
  try {
    return models::load_hardware(models::YamlReader::from_node(root, fmt::format("{} with {}", path, what)));
  } catch (const models::InputError& e) {
    throw models::InputError(fmt::format("{}: {}", context, e.what()));
  }
}
}  // namespace experiments
