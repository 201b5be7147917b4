#include "search/scenarios/validation_status.hpp"

#include <fmt/format.h>

#include <set>

#include "models/reference_data.hpp"

namespace search {

std::vector<ValidationStatus> validation_statuses(const std::string& config_dir) {
  const models::YamlReader r = models::open_reference("validation_status", config_dir);
  r.allow_only({"scenarios"});
  std::vector<ValidationStatus> out;
  std::set<std::string> seen;
  for (const auto& e : r.map_list("scenarios")) {
    e.allow_only({"name", "validated", "disagrees", "details"});
    ValidationStatus s{e.string("name"), e.string("validated"), e.string("disagrees"), e.string("details")};
    if (!seen.insert(s.name).second) e.fail("name", "each scenario once", "'" + s.name + "' again");
    out.push_back(std::move(s));
  }
  return out;
}

std::optional<ValidationStatus> validation_status(const std::string& name, const std::string& config_dir) {
  for (auto& s : validation_statuses(config_dir))
    if (s.name == name) return s;
  return std::nullopt;
}

std::string validation_footer(const ValidationStatus& s) {
  return fmt::format("validation: {}; known to disagree: {}; details: {}", s.validated, s.disagrees, s.details);
}

std::string validation_note(const std::string& name, const std::string& config_dir) {
  const auto s = validation_status(name, config_dir);
  return s ? "\n" + validation_footer(*s) : std::string();
}

}  // namespace search
