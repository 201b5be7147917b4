#include "experiments/cli/command_registry.hpp"

namespace experiments {

std::vector<CommandInfo>& command_table() {
  static std::vector<CommandInfo> table;
  return table;
}

RegisterCommand::RegisterCommand(std::string name, std::string description, CommandSetup setup,
                                 int order) {
  command_table().push_back({std::move(name), std::move(description), std::move(setup), order});
}

}  // namespace experiments
