#include "experiments/cli/cli_common.hpp"
#include "experiments/sweep/scenario_sweep.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <iostream>
#include <mutex>
#include <thread>

#include "experiments/cli/scenario_runner.hpp"
#include "experiments/sweep/sweep_spec_file.hpp"
#include "models/closest_name.hpp"
#include "models/config_error.hpp"
#include "search/scenarios/scenario.hpp"

namespace experiments {

namespace {

// Scenario sweeps hold fewer points than optimiser sweeps: each is a whole scenario run.
constexpr std::size_t kMaxScenarioPoints = 100000;

// Common inputs under their CLI names, and the optimiser sweeps' spellings of two of them.
std::string input_key(const std::string& key) {
  if (key == "hardware") return "hw";
  if (key == "source_table") return "source-table";
  return key;
}

std::string scalar(const std::string& file, const std::string& key, const YAML::Node& n) {
  if (!n.IsScalar()) models::throw_input_error(file, key, "a value", n.IsSequence() ? "a list" : "a map");
  return n.Scalar();
}

void check_value(const std::string& file, const search::ScenarioInfo& info, const std::string& key,
                 const std::string& value) {
  const std::string where = "axes." + key;
  if (const auto* p = search::find_param(info, key)) {
    if (const auto problem = search::param_problem(*p, value); !problem.empty())
      throw models::InputError(fmt::format("{}: {}: {}", file, where, problem));
    return;
  }
  // The two numeric inputs, checked as declarations would be.
  static const search::ScenarioParam context =
      search::param::integer("context", 0, 0, double(kMaxContext), "tokens", "KV length");
  static const search::ScenarioParam batch = search::param::integer("batch", 1, 1, 1 << 16, "sequences", "batch");
  const std::string k = input_key(key);
  const search::ScenarioParam* numeric = k == "context" ? &context : k == "batch" ? &batch : nullptr;
  if (numeric) {
    if (const auto problem = search::param_problem(*numeric, value); !problem.empty())
      throw models::InputError(fmt::format("{}: {}: {}", file, where, problem));
  } else if (value.empty()) {
    models::throw_input_error(file, where, "a name", "an empty value");
  }
}

// The scenario inputs of a point whose axis values are `chosen` (axis_values_at).
ScenarioInputs point_inputs(const ScenarioSweepSpec& spec, const std::vector<std::string>& chosen,
                            const std::string& engine) {
  ScenarioInputs in;
  if (!engine.empty()) in.engine = engine, in.engine_given = true;
  for (std::size_t i = 0; i < spec.axes.size(); ++i) {
    const std::string key = input_key(spec.axes[i].key);
    const std::string& v = chosen[i];
    if (key == "hw") in.hw = v;
    // A scenario's own `stack` parameter (the EAGLE dispatcher's) is that, not the common input.
    else if (key == "stack" && !search::find_param(search::scenario(spec.scenario), "stack")) in.stack = v;
    else if (key == "host") in.host = v;
    else if (key == "model") in.model = v;
    else if (key == "algorithm") in.algorithm = v;
    else if (key == "context") in.contexts = {std::stoll(v)};
    else if (key == "batch") in.batch = int(std::stoll(v));
    else if (key == "task") in.task = v;
    else if (key == "data") in.data = v;
    else if (key == "source-table") in.source_table = v;
    else if (key == "engine") in.engine = v, in.engine_given = true;
    else in.params.push_back(spec.axes[i].key + "=" + v);
  }
  return in;
}

}  // namespace

std::size_t ScenarioSweepSpec::size() const { return point_count(axes); }

std::optional<ScenarioSweepSpec> load_scenario_sweep_spec(const std::string& path) {
  YAML::Node root = read_sweep_spec_file(path);
  if (!root.IsMap() || !root["scenario"]) return std::nullopt;
  ScenarioSweepSpec s;
  s.path = path;
  const std::vector<std::string> top = {"name", "description", "scenario", "axes"};
  std::vector<std::string> seen_top;
  for (const auto& kv : root) {
    const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : std::string("?");
    // yaml-cpp keeps the first of a repeated key: a repeat is an error, not a silent choice.
    if (std::find(seen_top.begin(), seen_top.end(), k) != seen_top.end())
      models::throw_input_error(path, k, "each key once", "a repeat");
    seen_top.push_back(k);
    if (std::find(top.begin(), top.end(), k) == top.end())
      throw models::InputError(fmt::format("{}: {}: unknown key in a scenario sweep (keys: name, description, scenario, "
                                           "axes){}", path, k, models::did_you_mean(k, top)));
  }
  s.scenario = scalar(path, "scenario", root["scenario"]);
  const auto info = search::scenario(s.scenario);  // InputError naming the registered ones
  s.name = root["name"] ? scalar(path, "name", root["name"]) : s.scenario;
  const YAML::Node axes = root["axes"];
  if (!axes || !axes.IsMap() || axes.size() == 0)
    models::throw_input_error(path, "axes", "a map of axis names to values", "nothing");
  std::vector<std::string> known = scenario_input_names();
  known.insert(known.end(), {"hardware", "source_table"});
  for (const auto& p : info.params) known.push_back(p.key);
  std::size_t points = 1;
  for (const auto& kv : axes) {
    SweepAxis a;
    a.key = scalar(path, "axes", kv.first);
    if (std::find(known.begin(), known.end(), a.key) == known.end())
      throw models::InputError(fmt::format("{}: axes.{}: neither a common input nor a parameter of scenario {}{}", path,
                                           a.key, s.scenario, models::did_you_mean(a.key, known)));
    for (const auto& b : s.axes)
      if (input_key(b.key) == input_key(a.key)) models::throw_input_error(path, "axes." + a.key, "each axis once", "a repeat");
    const YAML::Node& v = kv.second;
    if (v.IsSequence()) {
      for (const auto& e : v) a.values.push_back(scalar(path, "axes." + a.key, e));
    } else {
      a.values = {scalar(path, "axes." + a.key, v)};
    }
    if (a.values.empty()) models::throw_input_error(path, "axes." + a.key, "at least one value", "an empty list");
    for (const auto& value : a.values) check_value(path, info, a.key, value);
    if (a.values.size() > kMaxScenarioPoints / points)
      models::throw_input_error(path, "axes", fmt::format("at most {} points", kMaxScenarioPoints), "more");
    points *= a.values.size();
    s.axes.push_back(std::move(a));
  }
  return s;
}

Table run_scenario_sweep(const ScenarioSweepSpec& spec, const models::ConfigRegistry& registry,
                         const ScenarioSweepOptions& options) {
  const std::size_t total = spec.size();
  std::vector<search::ScenarioResult> results(total);
  std::vector<std::exception_ptr> errors(total);
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex progress_mutex;
  auto worker = [&] {
    for (std::size_t i = next++; i < total; i = next++) {
      try {
        results[i] = run_scenario(spec.scenario, point_inputs(spec, axis_values_at(spec.axes, i), options.engine),
                                  registry);
      } catch (...) {
        errors[i] = std::current_exception();
      }
      const std::size_t n = ++done;
      if (options.progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        std::cerr << fmt::format("\rspecdse: sweep {}: {}/{} points", spec.name, n, total) << (n == total ? "\n" : "")
                  << std::flush;
      }
    }
  };
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const unsigned threads = unsigned(std::min<std::size_t>(options.threads ? options.threads : hw, total));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  // The first failing point in index order decides the error, whatever the thread count.
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);

  std::vector<std::string> columns;
  for (const auto& a : spec.axes) columns.push_back(a.key);
  const auto& first = results.front().columns;
  for (const auto& c : first) columns.push_back(std::find(columns.begin(), columns.end(), c) == columns.end() ? c : "result_" + c);
  search::ScenarioResult all;
  all.columns = columns;
  for (std::size_t i = 0; i < total; ++i) {
    const std::vector<std::string> chosen = axis_values_at(spec.axes, i);
    for (const auto& row : results[i].rows) {
      std::vector<search::ScenarioCell> cells(chosen.begin(), chosen.end());
      cells.insert(cells.end(), row.begin(), row.end());
      all.rows.push_back(std::move(cells));
    }
  }
  all.footer = fmt::format("scenario {}: {} points", spec.scenario, total);
  return scenario_table(all);
}

}  // namespace experiments
