#include "experiments/cli/scenario_commands.hpp"

#include <fmt/format.h>

#include <memory>
#include <sstream>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/scenario_options.hpp"
#include "experiments/cli/scenario_runner.hpp"
#include "models/config_error.hpp"

namespace experiments {

namespace {

// After the hand-made commands in --help.
constexpr int kScenarioCommandOrder = 60;

int run_generated(CLI::App& sub, ScenarioCommandArgs& a, const search::ScenarioInfo& info, const GlobalOptions& g) {
  finish_scenario_inputs(sub, a, &info);
  const auto result = run_scenario(info.name, a.inputs, registry(g));
  print_table(scenario_table(result), a.format);
  if (!a.trace_out.empty()) {
    if (!result.write_trace)
      throw models::InputError(fmt::format("--trace-out: scenario {} writes no timeline trace", info.name));
    std::ostringstream json;
    result.write_trace(json);
    write_file_atomic(a.trace_out, json.str());
  }
  return 0;
}

}  // namespace

std::vector<CommandInfo> scenario_commands() {
  std::vector<CommandInfo> out;
  for (const auto& info : search::scenarios()) {
    if (info.command.empty()) continue;
    CommandInfo c;
    c.name = info.command;
    c.description = info.description + " (scenario; also `specdse scenario " + info.name + "`)";
    c.order = kScenarioCommandOrder;
    c.setup = [info](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<ScenarioCommandArgs>();
      add_scenario_inputs(sub, *a, &info);
      add_scenario_param_flags(sub, *a, info);
      sub.add_option("--trace-out", a->trace_out, "Write the scenario's timeline as Chrome trace-event JSON");
      return [a, info, &g, &sub] { return run_generated(sub, *a, info, g); };
    };
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace experiments
