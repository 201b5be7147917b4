#include "experiments/cli/scenario_runner.hpp"

#include <type_traits>
#include <variant>

namespace experiments {

std::string validation_field(const std::string& validation) {
  // The printed line starts with its label; the field's key says it already.
  const std::string label = "validation: ";
  return validation.rfind(label, 0) == 0 ? validation.substr(label.size()) : validation;
}

Table scenario_table(const search::ScenarioResult& result) {
  Table t(result.columns);
  for (const auto& row : result.rows) {
    std::vector<Cell> cells;
    cells.reserve(row.size());
    for (const auto& c : row)
      cells.push_back(std::visit([](const auto& v) -> Cell {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, double>) return num(v);
        else return v;
      }, c));
    t.add_row(std::move(cells));
  }
  t.set_footer(result.validation.empty() ? result.footer
                                           : result.footer + (result.footer.empty() ? "" : "\n") + result.validation);
  for (const auto& [key, value] : result.meta) t.add_meta(key, value);
  t.set_narrow_columns(result.narrow_columns);
  if (!result.validation.empty()) t.add_meta("validation", validation_field(result.validation));
  return t;
}

const std::vector<std::string>& scenario_input_names() {
  static const std::vector<std::string> names = {"hw", "stack", "host", "model", "algorithm", "context",
                                                 "batch", "task", "data", "source-table", "engine"};
  return names;
}

}  // namespace experiments
