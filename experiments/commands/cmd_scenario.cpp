// specdse scenario NAME: runs one registered scenario (search/scenarios/scenario.hpp) on the
// common inputs (hardware and engine, workload, contexts, acceptance data) and its own
// --param KEY=VALUE settings; --list names every scenario with its parameters.
#include <fmt/format.h>

#include <memory>
#include <sstream>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/scenario_commands.hpp"
#include "experiments/cli/scenario_options.hpp"
#include "experiments/cli/scenario_runner.hpp"
#include "models/config_error.hpp"

namespace experiments {
namespace {

struct ScenarioArgs {
  std::string name;
  bool list = false;
  ScenarioCommandArgs common;
};

int list_scenarios(const std::string& format) {
  Table t({"scenario", "description", "command", "params"});
  for (const auto& s : search::scenarios()) {
    std::string params;
    for (const auto& p : s.params)
      params += fmt::format("{}{}={} ({}; {})", params.empty() ? "" : "; ", p.key, p.default_value, p.help,
                            search::describe_param(p));
    t.add_row({s.name, s.description, s.command.empty() ? "" : "specdse " + s.command, params});
  }
  print_table(t, format);
  return 0;
}

int run(CLI::App& sub, ScenarioArgs& a, const GlobalOptions& g) {
  if (a.list) return list_scenarios(a.common.format);
  if (a.name.empty()) models::throw_input_error("command line", "scenario", "a scenario name or --list", "none");
  return run_scenario_command(sub, a.common, a.name, nullptr, g);
}

const RegisterCommand scenario_registration{
    "scenario",
    "Run a registered scenario (tree SD, chain SD, SpecPipe, DuoDecoding, EAGLE, ...); --list names them and their --param keys",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<ScenarioArgs>();
      sub.add_option("name", a->name, "Scenario name (see --list)");
      sub.add_flag("--list", a->list, "List the registered scenarios and their parameters");
      add_scenario_inputs(sub, a->common, nullptr);
      sub.add_option("--param", a->common.inputs.params, "Scenario parameter KEY=VALUE (repeatable; see --list)");
      sub.add_option("--trace-out", a->common.trace_out, "Write the scenario's timeline as Chrome trace-event JSON");
      return [a, &g, &sub] { return run(sub, *a, g); };
    },
    36};

}  // namespace
}  // namespace experiments
