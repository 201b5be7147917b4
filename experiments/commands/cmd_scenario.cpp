// specdse scenario NAME: runs one registered scenario (search/scenarios/scenario.hpp) on the
// common inputs resolved here (hardware and engine, workload, contexts, acceptance data) and
// its own --param KEY=VALUE settings; --list names every scenario with its parameters.
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <type_traits>
#include <variant>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "models/config_error.hpp"
#include "search/scenarios/scenario.hpp"

namespace experiments {
namespace {

struct ScenarioArgs {
  std::string name, hw, model, algorithm, task = "govreport", context, data, source_table, engine, format;
  std::vector<std::string> params;
  int batch = 1;
  bool list = false;
};

int list_scenarios(const std::string& format) {
  Table t({"scenario", "description", "params"});
  for (const auto& s : search::scenarios()) {
    std::string params;
    for (const auto& p : s.params)
      params += fmt::format("{}{}={} ({})", params.empty() ? "" : "; ", p.key, p.default_value, p.help);
    t.add_row({s.name, s.description, params});
  }
  print_table(t, format);
  return 0;
}

int run_scenario(const ScenarioArgs& a, const GlobalOptions& g) {
  if (a.list) return list_scenarios(a.format);
  if (a.name.empty())
    models::throw_input_error("command line", "scenario", "a scenario name or --list", "none");
  const auto info = search::scenario(a.name);
  search::ScenarioContext ctx;
  ctx.scenario = info.name;
  ctx.params = search::scenario_params(info, a.params);
  const auto reg = registry(g);
  ctx.configs = &reg;
  std::optional<models::HardwareSpec> hw;
  std::unique_ptr<models::LatencyEngine> engine;
  if (!a.hw.empty()) {
    hw = reg.hardware(a.hw);
    engine = make_engine(a.engine, *hw);
    ctx.hw = &*hw;
    ctx.engine = engine.get();
  }
  std::optional<models::Workload> workload;
  if (!a.model.empty()) {
    workload = make_workload(reg, a.model, a.algorithm, a.batch);
    ctx.workload = &*workload;
  }
  if (!a.context.empty()) ctx.contexts = parse_int_list("--context", a.context, 0);
  std::optional<search::AcceptanceData> data;
  if (!a.algorithm.empty()) {
    data = search::AcceptanceData::load(a.data.empty() ? search::default_acceptance_path() : a.data);
    ctx.aat = [&data, sel = AatSelection{a.algorithm, a.model, a.task, a.source_table}](long long L) {
      return aat_source(*data, sel, L);
    };
  }
  const auto result = info.run(ctx);
  Table t(result.columns);
  for (const auto& row : result.rows) {
    std::vector<Cell> cells;
    for (const auto& c : row)
      cells.push_back(std::visit([](const auto& v) -> Cell {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, double>) return num(v);
        else return v;
      }, c));
    t.add_row(cells);
  }
  t.set_footer(result.footer);
  print_table(t, a.format);
  return 0;
}

const RegisterCommand reg{
    "scenario",
    "Run a registered scenario (tree SD, ...) on a workload; --list names them and their --param keys",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<ScenarioArgs>();
      sub.add_option("name", a->name, "Scenario name (see --list)");
      sub.add_flag("--list", a->list, "List the registered scenarios and their parameters");
      sub.add_option("--hw", a->hw, "Hardware config name");
      sub.add_option("--model", a->model, "Target model config name");
      sub.add_option("--algorithm", a->algorithm, "SD algorithm (configs/algorithms) or draft model name");
      sub.add_option("--draft", a->algorithm)->group("");  // latency's / window's name for the same thing
      sub.add_option("--context", a->context, "Context lengths: 128,1024 or a range");
      sub.add_option("--batch", a->batch, "Sequences decoded together")->default_val(1)->check(integer_in(1, kMaxBatch));
      sub.add_option("--task", a->task, "Task whose measured AAT to use")->default_val("govreport");
      sub.add_option("--data", a->data, "AAT CSV (default: configs/acceptance/aat_measurements.csv)");
      sub.add_option("--source-table", a->source_table, "Only AAT rows from this source table");
      sub.add_option("--param", a->params, "Scenario parameter KEY=VALUE (repeatable; see --list)");
      add_engine_option(sub, a->engine);
      add_format_option(sub, a->format);
      return [a, &g] { return run_scenario(*a, g); };
    },
    36};

}  // namespace
}  // namespace experiments
