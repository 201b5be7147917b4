// specdse: design-space explorer for speculative decoding. Subcommands live in
// experiments/cmd_*.cpp and register themselves; this file only wires up CLI11 and maps errors
// to exit codes (2: bad input or config, 1: internal error).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>

#include "experiments/cli/command_registry.hpp"
#include "experiments/cli/version.hpp"
#include "models/config_error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"specdse: when and how speculative decoding pays off on FPGAs, GPUs and CPUs"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  app.set_version_flag("--version", "specdse " + experiments::version() + " (git commit " +
                                        experiments::git_commit() + ")");
  experiments::GlobalOptions global;
  app.add_option("--config-dir", global.config_dir,
                 "Folder with hardware/, models/, algorithms/ and acceptance/ (default: the "
                 "project's configs/ or $SPECDSE_CONFIG_DIR)");
  auto commands = experiments::command_table();
  std::stable_sort(commands.begin(), commands.end(),
                   [](const auto& a, const auto& b) { return a.order < b.order; });
  std::vector<std::pair<CLI::App*, experiments::CommandRunner>> runners;
  for (const auto& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    runners.emplace_back(sub, c.setup(*sub, global));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) return run();
  } catch (const models::InputError& e) {
    std::cerr << "specdse: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "specdse: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
