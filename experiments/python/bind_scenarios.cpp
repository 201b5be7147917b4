// _specdse: every scenario of the registry (search/scenarios/scenario.hpp) through one call,
// as `specdse scenario NAME` runs it: the common inputs (hardware and engine, workload,
// contexts, acceptance data) resolved here, the scenario's own parameters as KEY=VALUE
// settings. A newly registered scenario is callable from Python without binding code.
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <cmath>
#include <type_traits>
#include <memory>
#include <optional>
#include <tuple>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/scenario_runner.hpp"
#include "experiments/python/columns.hpp"
#include "experiments/python/without_gil.hpp"
#include "models/config_error.hpp"
#include "search/scenarios/scenario.hpp"

namespace specdse_py {
namespace {

// A scenario column: integers when every cell is one, reals (empty text -> NaN) when every cell
// is a number or empty, else text (a number in a text column in its shortest round-trip form).
// `int_with_gaps`: every cell is an integer or empty, some are empty (plan's rank of an unranked
// row): Python types it as pandas' nullable Int64, so its values stay integers.
Columns::Column scenario_column(const search::ScenarioResult& r, std::size_t col, bool& int_with_gaps) {
  bool all_int = true, all_num = true, ints_or_empty = true, some_int = false;
  for (const auto& row : r.rows) {
    if (col >= row.size()) continue;
    if (std::holds_alternative<double>(row[col])) ints_or_empty = false;
    if (std::holds_alternative<std::int64_t>(row[col])) some_int = true;
    if (const auto* s = std::get_if<std::string>(&row[col]); s && !s->empty()) ints_or_empty = false;
  }
  for (const auto& row : r.rows) {
    if (col >= row.size()) {
      all_int = false;
      continue;
    }
    const auto& cell = row[col];
    if (std::holds_alternative<double>(cell)) all_int = false;
    if (const auto* s = std::get_if<std::string>(&cell)) {
      all_int = false;
      if (!s->empty()) all_num = false;
    }
  }
  if (all_int) {
    std::vector<std::int64_t> v;
    for (const auto& row : r.rows) v.push_back(std::get<std::int64_t>(row[col]));
    return v;
  }
  int_with_gaps = ints_or_empty && some_int;
  if (all_num) {
    std::vector<double> v;
    for (const auto& row : r.rows) {
      if (col >= row.size()) v.push_back(std::nan(""));
      else if (const auto* d = std::get_if<double>(&row[col])) v.push_back(*d);
      else if (const auto* n = std::get_if<std::int64_t>(&row[col])) v.push_back(double(*n));
      else v.push_back(std::nan(""));  // an empty cell: no value
    }
    return v;
  }
  std::vector<std::string> v;
  for (const auto& row : r.rows) {
    if (col >= row.size()) {
      v.emplace_back();
      continue;
    }
    v.push_back(std::visit([](const auto& x) -> std::string {
      if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>) return x;
      else return fmt::format("{}", x);
    }, row[col]));
  }
  return v;
}

// What a scenario run returns to Python: its columns, the footer as the CLI prints it (the
// scenario's own, then its validation status), the footer's fields as JSON output has them, and
// the integer columns with empty cells.
struct RunOutput {
  Columns columns;
  std::string footer;
  std::vector<std::pair<std::string, search::ScenarioResult::MetaValue>> meta;
  std::vector<std::string> int_with_gaps;
};

RunOutput run(const std::string& name, const experiments::ScenarioInputs& in, const std::string& config_dir) {
  const auto result = experiments::run_scenario(name, in, registry(config_dir));
  RunOutput out;
  for (std::size_t k = 0; k < result.columns.size(); ++k) {
    bool gaps = false;
    out.columns.add(result.columns[k], scenario_column(result, k, gaps));
    if (gaps) out.int_with_gaps.push_back(result.columns[k]);
  }
  out.footer = scenario_footer(result);
  out.meta = scenario_meta(result);
  return out;
}

}  // namespace

std::string scenario_footer(const search::ScenarioResult& result) {
  return result.validation.empty() ? result.footer
                                   : result.footer + (result.footer.empty() ? "" : "\n") + result.validation;
}

std::vector<std::pair<std::string, search::ScenarioResult::MetaValue>> scenario_meta(const search::ScenarioResult& result) {
  auto meta = result.meta;
  if (!result.validation.empty()) meta.emplace_back("validation", experiments::validation_field(result.validation));
  return meta;
}

py::dict meta_dict(const std::vector<std::pair<std::string, search::ScenarioResult::MetaValue>>& meta) {
  py::dict d;
  for (const auto& [key, value] : meta)
    std::visit(
        [&, &k = key](const auto& v) {
          // A missing number is None, as JSON's null (NaN would make two equal results unequal).
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, double>) {
            if (std::isnan(v)) {
              d[py::str(k)] = py::none();
              return;
            }
          }
          d[py::str(k)] = py::cast(v);
        },
        value);
  return d;
}

void bind_scenarios(py::module_& m) {
  // (name, description, [(key, default, help, type, unit, accepted values)], command) for
  // every registered scenario: the declarations the CLI's flags are generated from.
  m.def("scenario_list", [] {
    using Param = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>;
    std::vector<std::tuple<std::string, std::string, std::vector<Param>, std::string>> out;
    for (const auto& s : search::scenarios()) {
      std::vector<Param> params;
      for (const auto& p : s.params)
        params.emplace_back(p.key, p.default_value, p.help, search::to_string(p.type), p.unit, search::describe_param(p));
      out.emplace_back(s.name, s.description, std::move(params), s.command);
    }
    return out;
  });

  m.def("run_scenario", [](const std::string& name, const models::HardwareSpec* hw, const std::string& model,
                           const std::string& algorithm, const std::vector<long long>& context, int batch,
                           const std::string& task, const std::string& data, const std::string& source_table,
                           const std::string& engine, const std::vector<std::string>& params,
                           const std::vector<std::string>& given, const std::string& config_dir) {
    // No hardware name (the spec instead, with its own stack), no system spec, the engine as a
    // keyword argument (not an explicit --engine).
    experiments::ScenarioInputs in;
    in.hw_spec = hw;
    in.model = model;
    in.algorithm = algorithm;
    in.task = task;
    in.data = data;
    in.source_table = source_table;
    in.engine = engine;
    in.contexts = context;
    in.batch = batch;
    in.params = params;
    // The keywords the caller set (at their default too): conflicts are found by presence.
    in.given.insert(given.begin(), given.end());
    in.engine_given = in.given.count("engine") > 0;
    const RunOutput r = without_gil([&] {
      if (batch < 1) models::throw_input_error("scenario " + name, "batch", "an integer >= 1", std::to_string(batch));
      return run(name, in, config_dir);
    });
    return py::make_tuple(r.columns.to_python(), r.footer, meta_dict(r.meta), r.int_with_gaps);
  }, py::arg("name"), py::arg("hw").none(true), py::arg("model"), py::arg("algorithm"), py::arg("context"),
     py::arg("batch"), py::arg("task"), py::arg("data"), py::arg("source_table"), py::arg("engine"), py::arg("params"),
     py::arg("given"), py::arg("config_dir"));
}

}  // namespace specdse_py
