#pragma once
// Shared by the binding files of _specdse: result tables as columns (filled without the GIL,
// converted once with it into {name: numpy array or list}, which Python turns into a DataFrame
// without touching rows one by one), and the config registry for an optional --config-dir.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "experiments/output/table.hpp"
#include "models/config_registry.hpp"
#include "search/scenarios/scenario.hpp"

namespace specdse_py {

namespace py = pybind11;

// One cell of a row for Columns::add_row: a number of floating type goes to a float column, an
// integer or bool to an int64 column, text to a string column.
struct ColumnCell {
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  ColumnCell(T v) : value(double(v)) {}
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  ColumnCell(T v) : value(std::int64_t(v)) {}
  ColumnCell(std::string v) : value(std::move(v)) {}
  ColumnCell(const char* v) : value(std::string(v)) {}
  std::variant<double, std::int64_t, std::string> value;
};

class Columns {
 public:
  using Column = std::variant<std::vector<double>, std::vector<std::int64_t>, std::vector<std::string>>;
  std::vector<double>& f(const std::string& name) { return std::get<std::vector<double>>(get(name, Column{std::vector<double>{}})); }
  std::vector<std::int64_t>& i(const std::string& name) {
    return std::get<std::vector<std::int64_t>>(get(name, Column{std::vector<std::int64_t>{}}));
  }
  std::vector<std::string>& s(const std::string& name) {
    return std::get<std::vector<std::string>>(get(name, Column{std::vector<std::string>{}}));
  }
  void add(std::string name, Column c) { cols_.emplace_back(std::move(name), std::move(c)); }
  // Appends one row, a cell per named column (a column's type is its first cell's).
  void add_row(std::initializer_list<std::pair<const char*, ColumnCell>> cells) {
    for (const auto& [name, cell] : cells) {
      if (const auto* v = std::get_if<double>(&cell.value)) f(name).push_back(*v);
      else if (const auto* v = std::get_if<std::int64_t>(&cell.value)) i(name).push_back(*v);
      else s(name).push_back(std::get<std::string>(cell.value));
    }
  }
  std::size_t size() const { return cols_.size(); }

  // {name: numpy array or list}, in column order (dicts keep insertion order).
  py::dict to_python() const {
    py::dict d;
    for (const auto& [name, col] : cols_) {
      if (auto* v = std::get_if<std::vector<double>>(&col))
        d[py::str(name)] = py::array_t<double>(py::ssize_t(v->size()), v->data());
      else if (auto* v = std::get_if<std::vector<std::int64_t>>(&col))
        d[py::str(name)] = py::array_t<std::int64_t>(py::ssize_t(v->size()), v->data());
      else
        d[py::str(name)] = py::cast(std::get<std::vector<std::string>>(col));
    }
    return d;
  }

 private:
  Column& get(const std::string& name, Column init) {
    for (auto& [n, c] : cols_)
      if (n == name) return c;
    cols_.emplace_back(name, std::move(init));
    return cols_.back().second;
  }
  // A deque: adding a column keeps references to the others valid.
  std::deque<std::pair<std::string, Column>> cols_;
};

inline models::ConfigRegistry registry(const std::string& config_dir) {
  return models::ConfigRegistry(config_dir.empty() ? models::ConfigRegistry::default_config_dir() : config_dir);
}

// A CLI table (experiments/output/table.hpp) as columns: integer columns int64, number columns
// float64 (empty cells NaN), the rest text (an all-empty column too). Defined in specdse_module.cpp.
Columns table_columns(const experiments::Table& t);

// A scenario result's footer as the CLI prints it (its own, then the validation status), its
// footer fields as --format json has them, and those fields as a Python dict (a missing number
// None). Defined in bind_scenarios.cpp.
std::string scenario_footer(const search::ScenarioResult& result);
std::vector<std::pair<std::string, search::ScenarioResult::MetaValue>> scenario_meta(const search::ScenarioResult& result);
py::dict meta_dict(const std::vector<std::pair<std::string, search::ScenarioResult::MetaValue>>& meta);

// The binding files, each adding one group of functions to the module.
void bind_trees(py::module_& m);      // traces, token-tree search (paper 000 §III-C)
void bind_window(py::module_& m);     // speculation window, window policies (paper 001)
void bind_scenarios(py::module_& m);  // every registered scenario (search/scenarios/scenario.hpp)
void bind_fit(py::module_& m);        // AAT fits and acceptance-process fits (specdse fit)

}  // namespace specdse_py
