// _specdse: the C++ side of `import specdse` (experiments/python/specdse/__init__.py wraps it).
// Every call does its work with the GIL released and builds its result as columns (numpy
// arrays for numbers, lists for text) once the work is done, so Python turns them into a
// DataFrame without touching rows one by one. models::InputError becomes specdse.InputError
// with the same one-line message.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/config_listing.hpp"
#include "experiments/cli/latency_table.hpp"
#include "experiments/cli/optimize_request.hpp"
#include "experiments/python/columns.hpp"
#include "experiments/python/without_gil.hpp"
#include "experiments/sweep/scenario_sweep.hpp"
#include "experiments/sweep/sweep_runner.hpp"
#include "experiments/sweep/sweep_spec.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/engine_registry.hpp"
#include "models/latency_engine.hpp"
#include "models/system_spec.hpp"
#include "experiments/output/table.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/optimizer.hpp"
#include "search/work_bound.hpp"
#include "sim/golden/gpu_golden_compare.hpp"
#include "sim/golden/moe_layer_golden.hpp"
#include "sim/system/system_costs.hpp"
#include "sim/system/system_step.hpp"

namespace py = pybind11;

namespace {

using specdse_py::Columns;
using specdse_py::registry;
using specdse_py::without_gil;

// Text cells of a CSV column -> int64 when every cell is an integer, float64 (empty -> NaN)
// when every non-empty cell is a number, else text; `real` forces float64 so a column's dtype
// does not depend on whether its values happen to be whole. Sweep rows are text (resumed rows
// come from the file), so the types are recovered per column.
Columns::Column typed_column(const std::vector<std::string>& cells, bool real) {
  bool all_int = true, all_num = true, any_value = false;
  std::vector<double> d(cells.size());
  std::vector<std::int64_t> n(cells.size());
  for (std::size_t k = 0; k < cells.size(); ++k) {
    const std::string& c = cells[k];
    if (c.empty()) {
      all_int = false;
      d[k] = std::nan("");
      continue;
    }
    any_value = true;
    char* end = nullptr;
    const long long v = std::strtoll(c.c_str(), &end, 10);
    if (end != c.c_str() + c.size()) all_int = false;
    else n[k] = v;
    const double x = std::strtod(c.c_str(), &end);
    if (end != c.c_str() + c.size()) all_num = false;
    else d[k] = x;
  }
  if (any_value && all_int && !real) return n;
  if (any_value && all_num) return d;
  return cells;
}

Columns sweep_columns_typed(const experiments::SweepSpec& spec, const std::vector<std::string>& lines) {
  const auto names = experiments::sweep_columns(spec);
  std::vector<std::vector<std::string>> cells(names.size());
  for (const auto& line : lines) {
    std::size_t col = 0, pos = 0;
    while (col < names.size()) {
      const auto comma = line.find(',', pos);
      cells[col].push_back(line.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
      ++col;
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    for (; col < names.size(); ++col) cells[col].push_back("");
  }
  // Quantities are real numbers whatever their values; counts, indices and x stay integers.
  std::vector<std::string> real = {"peak_tflops", "bandwidth_gbs", "flops_per_byte", "ar_tokens_per_s",
                                   "best_tokens_per_s", "speedup", "aat_at_best", "t_verify_s", "t_draft_s",
                                   "ridge_x"};
  for (const auto& k : spec.hardware_keys()) real.push_back(k);
  Columns out;
  for (std::size_t c = 0; c < names.size(); ++c)
    out.add(names[c], typed_column(cells[c], std::find(real.begin(), real.end(), names[c]) != real.end()));
  return out;
}

// A Python attribute `name` of an Outer that reads and writes a field of one of its members
// (OptimizeRequest's acceptance and placement options, flat in Python as on the command line).
template <class Outer, class Inner, class T>
void nested_property(py::class_<Outer>& c, const char* name, Inner Outer::*member, T Inner::*field) {
  c.def_property(
      name, [member, field](const Outer& o) { return o.*member.*field; },
      [member, field](Outer& o, const T& v) { (o.*member).*field = v; });
}

}  // namespace

namespace specdse_py {

Columns table_columns(const experiments::Table& t) {
  Columns out;
  for (std::size_t k = 0; k < t.columns().size(); ++k) {
    // Numbers where every cell is a number or empty and at least one is a number; a column of
    // text, or of empty text only (a flag column with nothing flagged), stays text.
    bool ints = true, nums = true, any_number = false;
    for (const auto& row : t.rows()) {
      const auto* s = std::get_if<std::string>(&row[k]);
      ints = ints && std::holds_alternative<std::int64_t>(row[k]);
      nums = nums && (s ? s->empty() : true);
      any_number = any_number || !s;
    }
    if (t.rows().empty()) ints = nums = false;
    nums = nums && any_number;
    Columns::Column col;
    if (ints) {
      std::vector<std::int64_t> v;
      for (const auto& row : t.rows()) v.push_back(std::get<std::int64_t>(row[k]));
      col = std::move(v);
    } else if (nums) {
      std::vector<double> v;
      for (const auto& row : t.rows()) {
        if (const auto* n = std::get_if<experiments::Number>(&row[k])) v.push_back(n->value);
        else if (const auto* i = std::get_if<std::int64_t>(&row[k])) v.push_back(double(*i));
        else v.push_back(std::nan(""));
      }
      col = std::move(v);
    } else {
      std::vector<std::string> v;
      for (const auto& row : t.rows()) {
        if (const auto* s = std::get_if<std::string>(&row[k])) v.push_back(*s);
        else if (const auto* i = std::get_if<std::int64_t>(&row[k])) v.push_back(std::to_string(*i));
        else v.push_back(fmt::format("{}", std::get<experiments::Number>(row[k]).value));
      }
      col = std::move(v);
    }
    out.add(t.columns()[k], std::move(col));
  }
  return out;
}

}  // namespace specdse_py

using specdse_py::table_columns;

PYBIND11_MODULE(_specdse, m) {
  m.doc() = "specdse C++ core (use the specdse package)";
  py::register_exception<models::InputError>(m, "InputError", PyExc_ValueError);
  specdse_py::bind_trees(m);
  specdse_py::bind_window(m);
  specdse_py::bind_scenarios(m);
  specdse_py::bind_fit(m);

  // What `specdse optimize` takes, field for field (experiments/cli/optimize_request.hpp).
  py::class_<experiments::OptimizeRequest> request(m, "OptimizeRequest");
  request
      .def(py::init<>())
      .def_readwrite("hw", &experiments::OptimizeRequest::hw)
      .def_readwrite("model", &experiments::OptimizeRequest::model)
      .def_readwrite("algorithm", &experiments::OptimizeRequest::algorithm)
      .def_readwrite("stack", &experiments::OptimizeRequest::stack)
      .def_readwrite("host", &experiments::OptimizeRequest::host)
      .def_readwrite("task", &experiments::OptimizeRequest::task)
      .def_readwrite("context", &experiments::OptimizeRequest::context)
      .def_readwrite("batch", &experiments::OptimizeRequest::batch)
      .def_readwrite("engine", &experiments::OptimizeRequest::engine)
      .def_readwrite("x_max", &experiments::OptimizeRequest::x_max)
      .def_readwrite("x_search", &experiments::OptimizeRequest::x_search)
      .def_readwrite("measured_only", &experiments::OptimizeRequest::measured_only);
  nested_property(request, "data", &experiments::OptimizeRequest::acceptance, &experiments::AcceptanceOptions::data);
  nested_property(request, "aat_from", &experiments::OptimizeRequest::acceptance, &experiments::AcceptanceOptions::aat_from);
  nested_property(request, "alpha", &experiments::OptimizeRequest::acceptance, &experiments::AcceptanceOptions::alpha);
  nested_property(request, "trace", &experiments::OptimizeRequest::acceptance, &experiments::AcceptanceOptions::trace);
  nested_property(request, "source_table", &experiments::OptimizeRequest::acceptance, &experiments::AcceptanceOptions::source_table);
  nested_property(request, "acceptance", &experiments::OptimizeRequest::acceptance, &experiments::AcceptanceOptions::process);
  nested_property(request, "draft_hw", &experiments::OptimizeRequest::placement, &experiments::DraftPlacementNames::draft_hw);
  nested_property(request, "draft_link", &experiments::OptimizeRequest::placement, &experiments::DraftPlacementNames::draft_link);
  nested_property(request, "system", &experiments::OptimizeRequest::placement, &experiments::DraftPlacementNames::system);
  nested_property(request, "draft_device", &experiments::OptimizeRequest::placement, &experiments::DraftPlacementNames::draft_device);

  py::class_<models::HardwareSpec>(m, "Hardware")
      .def_readonly("name", &models::HardwareSpec::name)
      .def_readonly("source_file", &models::HardwareSpec::source_file)
      .def_readonly("description", &models::HardwareSpec::description)
      .def_property_readonly("kind", [](const models::HardwareSpec& h) { return h.kind; })
      .def_property_readonly("peak_tflops", [](const models::HardwareSpec& h) { return h.peak_flops() / 1e12; })
      .def_property_readonly("bandwidth_gbs", [](const models::HardwareSpec& h) { return h.peak_bandwidth_bytes() / 1e9; })
      .def_property_readonly("memory_gib",
                             [](const models::HardwareSpec& h) { return h.memory_capacity_bytes() / double(1ull << 30); })
      .def("__repr__", [](const models::HardwareSpec& h) {
        return fmt::format("<specdse.Hardware {} ({}, {:.4g} TFLOP/s, {:.4g} GB/s)>", h.name, h.kind,
                           h.peak_flops() / 1e12, h.peak_bandwidth_bytes() / 1e9);
      });

  py::class_<models::ModelSpec>(m, "Model")
      .def_readonly("name", &models::ModelSpec::name)
      .def_readonly("source_file", &models::ModelSpec::source_file)
      .def_readonly("layers", &models::ModelSpec::layers)
      .def_readonly("hidden_size", &models::ModelSpec::hidden_size)
      .def_readonly("intermediate_size", &models::ModelSpec::intermediate_size)
      .def_readonly("attention_heads", &models::ModelSpec::attention_heads)
      .def_readonly("kv_heads", &models::ModelSpec::kv_heads)
      .def_readonly("vocab_size", &models::ModelSpec::vocab_size)
      .def_readonly("weight_format", &models::ModelSpec::weight_format)
      .def_property_readonly("parameters", &models::ModelSpec::parameters)
      .def_property_readonly("kv_bytes_per_token", &models::ModelSpec::kv_bytes_per_token)
      .def("__repr__", [](const models::ModelSpec& s) {
        return fmt::format("<specdse.Model {} ({:.3g}B parameters, {} layers)>", s.name, s.parameters() / 1e9, s.layers);
      });

  py::class_<models::SystemSpec>(m, "System")
      .def_readonly("name", &models::SystemSpec::name)
      .def_readonly("source_file", &models::SystemSpec::source_file)
      .def_property_readonly("devices",
                             [](const models::SystemSpec& s) {
                               std::vector<std::string> names;
                               for (const auto& d : s.devices) names.push_back(d.name);
                               return names;
                             })
      .def("__repr__", [](const models::SystemSpec& s) {
        return fmt::format("<specdse.System {} ({} devices)>", s.name, s.devices.size());
      });

  m.def("default_config_dir", &models::ConfigRegistry::default_config_dir);
  m.def("config_names", [](const std::string& folder, const std::string& config_dir) {
    return registry(config_dir).names(folder);
  }, py::arg("folder"), py::arg("config_dir") = "");
  m.def("engine_names", &models::engine_names);
  // `specdse list WHAT` as columns: integer columns int64, number columns float64 (empty cells
  // NaN), the rest text.
  m.def("list_configs", [](const std::string& what, const std::string& config_dir) {
    const Columns c = without_gil([&] {
      const experiments::Table t = experiments::list_table(what, registry(config_dir));
      return table_columns(t);
    });
    return c.to_python();
  }, py::arg("what") = "", py::arg("config_dir") = "");

  m.def("load_hardware", [](const std::string& spec, const std::string& config_dir) {
    return registry(config_dir).hardware(spec);
  }, py::arg("spec"), py::arg("config_dir") = "");
  m.def("load_model", [](const std::string& spec, const std::string& config_dir) {
    return registry(config_dir).model(spec);
  }, py::arg("spec"), py::arg("config_dir") = "");
  m.def("load_system", [](const std::string& spec, const std::string& config_dir) {
    const auto reg = registry(config_dir);
    return models::load_system(reg.path("systems", spec), reg);
  }, py::arg("spec"), py::arg("config_dir") = "");

  // T_v (and T_d with a draft) for every (context, x), contexts outermost as in the CLI.
  // `specdse latency`'s rows from the same builder (experiments/cli/latency_table.hpp).
  m.def("latency", [](const models::HardwareSpec& hw, const models::ModelSpec& model, const std::vector<long long>& xs,
                      const std::vector<long long>& contexts, const std::vector<long long>& batches,
                      const std::string& engine_name, const std::string& draft, const std::string& stack,
                      const std::string& host, bool breakdown, bool sample, const std::string& config_dir) {
    return without_gil([&] {
      const auto reg = registry(config_dir);
      experiments::LatencyRequest r;
      r.hw = hw;
      experiments::apply_stack_and_host(r.hw, stack, host, reg, "stack", "host");
      r.model = model;
      r.draft = draft;
      r.xs = xs;
      r.contexts = contexts;
      r.batches = batches;
      r.engine = engine_name;
      r.breakdown = breakdown;
      r.sample = sample;
      return table_columns(experiments::latency_table(r, reg));
    }).to_python();
  }, py::arg("hw"), py::arg("model"), py::arg("x"), py::arg("context"), py::arg("batch"),
     py::arg("engine") = "roofline", py::arg("draft") = "", py::arg("stack") = "", py::arg("host") = "",
     py::arg("breakdown") = false, py::arg("sample") = false, py::arg("config_dir") = "");

  // A CSV that cuda/run_goldens.sh wrote on a GPU next to the GPU model (as `specdse golden
  // --measured`): kernel rows or verify-step rows, whichever the file holds, or a MoE layer by
  // component (cuda/run_moe_layer_kernels.sh).
  m.def("golden_gpu", [](const models::HardwareSpec& hw, const std::string& measured, const std::string& config_dir) {
    return without_gil([&] {
      Columns c;
      const auto reg = registry(config_dir);
      if (sim::is_step_csv(measured)) {
        for (const auto& r : sim::compare_gpu_steps(measured, hw, reg)) {
          c.add_row({{"hw", hw.name}, {"model", r.model}, {"batch", r.batch}, {"x", r.x}, {"context", r.context},
                     {"measured_kernels", r.measured_kernels}, {"model_kernels", r.model_kernels},
                     {"graph_s", r.graph_s}, {"eager_s", r.eager_s}, {"predicted_s", r.predicted_s},
                     {"error_pct", r.error_pct()}, {"predicted_same_kernels_s", r.predicted_same_kernels_s},
                     {"same_kernels_error_pct", r.same_kernels_error_pct()}});
        }
      } else if (sim::is_moe_layer_csv(measured)) {
        const auto g = sim::compare_moe_layer(measured, hw, [&](const std::string& name) { return reg.model(name); });
        for (const auto& r : g.rows) {
          c.add_row({{"hw", hw.name}, {"model", r.model}, {"tokens", r.tokens}, {"routing", r.routing},
                     {"component", r.component}, {"experts_impl", r.experts_impl},
                     {"experts_touched", r.experts_touched}, {"expected_touched", r.expected_touched},
                     {"kernels", r.kernels}, {"measured_s", r.measured_s}, {"predicted_s", r.predicted_s},
                     {"error_pct", r.error_pct()}});
        }
      } else {
        for (const auto& r : sim::compare_gpu_measurements(measured, hw)) {
          c.add_row({{"hw", hw.name}, {"kernel", r.shape.kernel}, {"source", r.shape.source}, {"m", r.shape.m},
                     {"n", r.shape.n}, {"k", r.shape.k}, {"measured_s", r.measured_s}, {"predicted_s", r.predicted_s},
                     {"error_pct", r.error_pct()}});
        }
      }
      return c;
    }).to_python();
  }, py::arg("hw"), py::arg("measured"), py::arg("config_dir") = "");

  // `specdse optimize`: the tree-sd scenario it is the command of, run once; its table as columns,
  // and its "curve" table (every evaluated x per context and batch).
  m.def("optimize", [](const experiments::OptimizeRequest& request, const std::string& config_dir) {
    auto summary_curve = without_gil([&] {
      const auto result = experiments::run_scenario("tree-sd", experiments::optimize_inputs(request), registry(config_dir));
      Columns c;
      const auto& t = result.tables.at("curve");
      for (const auto& row : t.rows)
        for (std::size_t i = 0; i < t.columns.size(); ++i) {
          if (const auto* d = std::get_if<double>(&row[i])) c.f(t.columns[i]).push_back(*d);
          else if (const auto* n = std::get_if<std::int64_t>(&row[i])) c.i(t.columns[i]).push_back(*n);
          else c.s(t.columns[i]).push_back(std::get<std::string>(row[i]));
        }
      return std::make_tuple(table_columns(experiments::scenario_table(result)), std::move(c),
                             specdse_py::scenario_footer(result), specdse_py::scenario_meta(result));
    });
    py::dict attrs = specdse_py::meta_dict(std::get<3>(summary_curve));
    attrs["footer"] = std::get<2>(summary_curve);
    return py::make_tuple(std::get<0>(summary_curve).to_python(), std::get<1>(summary_curve).to_python(), attrs);
  }, py::arg("request"), py::arg("config_dir") = "");

  m.def("system_step", [](const models::SystemSpec& system, const models::ModelSpec& model,
                          std::optional<models::ModelSpec> draft, int x, long long context, int batch,
                          const std::string& engine) {
    const sim::SystemStep r = without_gil([&] {
      sim::SystemQuery q;
      q.target = model;
      q.draft = std::move(draft);
      q.x = x;
      q.context = context;
      q.batch = batch;
      return sim::simulate_system_step(system, q, engine);
    });
    Columns dev, lanes;
    constexpr double kGiB = double(1ull << 30);
    for (const auto& d : r.devices)
      dev.add_row({{"device", d.device}, {"hardware", d.hardware}, {"stack", d.stack}, {"host", d.host}, {"role", d.role},
                   {"busy_s", d.busy_s}, {"memory_need_gib", d.memory.need.total() / kGiB},
                   {"memory_capacity_gib", d.memory.capacity_bytes / kGiB}, {"fits", d.memory.fits()}});
    for (const auto& l : r.lanes)
      lanes.add_row({{"lane", l.lane}, {"link", l.link}, {"bytes", l.bytes}, {"messages", l.messages},
                     {"busy_s", l.busy_s}});
    py::dict out;
    out["step_s"] = r.step_s;
    out["target_s"] = r.target_s;
    out["feasible"] = r.feasible;
    out["tokens_per_s"] = r.step_s > 0 ? double(x) * batch / r.step_s : 0.0;
    out["devices"] = dev.to_python();
    out["lanes"] = lanes.to_python();
    return out;
  }, py::arg("system"), py::arg("model"), py::arg("draft") = py::none(), py::arg("x") = 1, py::arg("context") = 1024,
     py::arg("batch") = 1, py::arg("engine") = "roofline");

  // The sweep of a spec file, in index order; the same rows `specdse sweep` writes.
  m.def("sweep", [](const std::string& spec_path, unsigned threads, const std::string& engine,
                    const std::string& out, const std::string& config_dir) {
    std::string dropped;  // rows of `out` found damaged and computed again: a Python warning
    auto columns = without_gil([&] {
      Columns c;
      const auto reg = registry(config_dir);
      // A spec with `scenario:`: that scenario per point, as `specdse sweep` runs it.
      if (const auto scenario_spec = experiments::load_scenario_sweep_spec(spec_path)) {
        experiments::ScenarioSweepOptions o;
        o.threads = threads;
        o.engine = engine;
        const experiments::Table rows = experiments::run_scenario_sweep(*scenario_spec, reg, o);
        if (!out.empty()) experiments::write_file_atomic(out, rows.to_string(experiments::OutputFormat::csv));
        return table_columns(rows);
      }
      auto spec = experiments::load_sweep_spec(spec_path);
      if (!engine.empty()) spec.engine = engine;  // as the CLI's --engine: the rows say which
      std::vector<std::string> lines;
      if (out.empty()) {
        std::vector<std::size_t> all(spec.size());
        for (std::size_t k = 0; k < all.size(); ++k) all[k] = k;
        lines = experiments::compute_sweep_rows(spec, reg, all, threads, engine);
      } else {
        experiments::SweepRunOptions o;
        o.out_path = out;
        o.threads = threads;
        o.engine = engine;
        experiments::Table rows({});
        dropped = experiments::run_sweep(spec, reg, o, &rows).dropped;
        for (const auto& r : rows.rows()) {
          std::string line;
          for (std::size_t k = 0; k < r.size(); ++k) line += (k ? "," : "") + std::get<std::string>(r[k]);
          lines.push_back(std::move(line));
        }
      }
      c = sweep_columns_typed(spec, lines);
      return c;
    });
    if (!dropped.empty())
      py::module_::import("warnings").attr("warn")(dropped, py::module_::import("builtins").attr("RuntimeWarning"));
    return columns.to_python();
  }, py::arg("spec"), py::arg("threads") = 0, py::arg("engine") = "", py::arg("out") = "", py::arg("config_dir") = "");
}
