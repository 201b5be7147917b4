#pragma once
// Subcommands generated from the scenario registry: every scenario that names a command
// (ScenarioInfo::command) becomes `specdse COMMAND` with the common inputs it takes and one
// `--KEY` flag per declared parameter (experiments/cli/scenario_options.hpp). A new scenario
// gets its command without a line here.
#include <vector>

#include "experiments/cli/command_registry.hpp"

namespace experiments {

std::vector<CommandInfo> scenario_commands();

}  // namespace experiments
