#pragma once
// Subcommands generated from the scenario registry: every scenario that asks for its own
// command (ScenarioInfo::own_command) becomes `specdse NAME` with the common inputs and one
// `--KEY` flag per declared parameter (experiments/cli/scenario_options.hpp). A new scenario
// gets its command without a line here.
#include <vector>

#include "experiments/cli/command_registry.hpp"

namespace experiments {

std::vector<CommandInfo> scenario_commands();

}  // namespace experiments
