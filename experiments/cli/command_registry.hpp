#pragma once
// Subcommands register themselves (one file per subcommand) so adding a command never edits
// a shared list. Each registration adds options to its CLI11 subcommand and returns the
// function to run when that subcommand is chosen.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace experiments {

struct GlobalOptions {
  std::string config_dir;  // empty: ConfigRegistry's default
  std::string command_line;  // "specdse ARGS" as typed (shell-quoted), for reports
};

using CommandRunner = std::function<int()>;
using CommandSetup = std::function<CommandRunner(CLI::App& sub, const GlobalOptions& global)>;

struct CommandInfo {
  std::string name;
  std::string description;
  CommandSetup setup;
  int order = 100;  // position in --help
};

// Every registered subcommand, by name (a second registration of a name is an error:
// models/registry.hpp).
std::vector<CommandInfo> command_table();

struct RegisterCommand {
  RegisterCommand(std::string name, std::string description, CommandSetup setup, int order = 100);
};

}  // namespace experiments
