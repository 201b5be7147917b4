#pragma once
// Subcommands generated from the scenario registry: every scenario that names a command
// (ScenarioInfo::command) becomes `specdse COMMAND` with the common inputs it takes and one
// `--KEY` flag per declared parameter (experiments/cli/scenario_options.hpp). A new scenario
// gets its command without a line here.
#include <string>
#include <vector>

#include "experiments/cli/command_registry.hpp"
#include "experiments/cli/scenario_options.hpp"

namespace experiments {

std::vector<CommandInfo> scenario_commands();

// Runs scenario `name` from a command line's inputs and writes its outputs: the trace file first
// (its path checked before the work), then the table, then a plot. `info`: the scenario whose
// parameters are flags (a generated command), or null (`specdse scenario NAME --param ...`).
int run_scenario_command(CLI::App& sub, ScenarioCommandArgs& a, const std::string& name,
                         const search::ScenarioInfo* info, const GlobalOptions& g);

}  // namespace experiments
