#include "experiments/cli/command_registry.hpp"

#include "models/registry.hpp"

namespace experiments {

namespace {

models::Registry<std::string, CommandInfo>& commands() {
  static models::Registry<std::string, CommandInfo> r("subcommands");
  return r;
}

}  // namespace

std::vector<CommandInfo> command_table() { return commands().values(); }

RegisterCommand::RegisterCommand(std::string name, std::string description, CommandSetup setup,
                                 int order) {
  const std::string key = name;
  commands().add(key, {std::move(name), std::move(description), std::move(setup), order});
}

}  // namespace experiments
