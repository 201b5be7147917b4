#include "models/config_error.hpp"

#include <fmt/format.h>

namespace models {

void throw_input_error(const std::string& file, const std::string& key,
                       const std::string& expected, const std::string& got) {
  throw InputError(fmt::format("{}: {}: expected {}, got {}", file, key, expected, got));
}

}  // namespace models
