#include "sim/io/json_string.hpp"

#include <nlohmann/json.hpp>

namespace sim {

std::string json_string(const std::string& s) {
  // No indentation (-1); `replace` instead of throwing on invalid UTF-8: a label with a stray
  // byte still gives valid JSON.
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace sim
