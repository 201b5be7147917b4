// specdse: design-space explorer for speculative decoding. Subcommands live in
// experiments/cmd_*.cpp and register themselves; this file only wires up CLI11 and maps errors
// to exit codes (2: bad input or config, 1: internal error).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>
#include <string>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/command_registry.hpp"
#include "experiments/cli/scenario_commands.hpp"
#include "experiments/cli/unknown_arguments.hpp"
#include "models/version.hpp"
#include "sim/io/temp_files.hpp"
#include "models/config_error.hpp"

namespace {
// Error messages are one line; a message that carries a newline is cut there.
std::string first_line(const std::string& message) { return message.substr(0, message.find('\n')); }
}  // namespace

int main(int argc, char** argv) {
  sim::install_temp_file_cleanup();
  CLI::App app{"specdse: when and how speculative decoding pays off on FPGAs, GPUs and CPUs"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  app.set_version_flag("--version", "specdse " + models::version() + " (git commit " +
                                        models::git_commit() + ")");
  experiments::GlobalOptions global;
  global.command_line = "specdse";
  for (int i = 1; i < argc; ++i) global.command_line += " " + experiments::shell_word(argv[i]);
  app.add_option("--config-dir", global.config_dir,
                 "Folder with hardware/, models/, algorithms/ and acceptance/ (default: the "
                 "project's configs/ or $SPECDSE_CONFIG_DIR)");
  auto commands = experiments::command_table();
  // Scenarios that ask for a subcommand of their own get one generated from their declarations;
  // a hand-made command of the same name wins.
  for (auto& c : experiments::scenario_commands())
    if (std::none_of(commands.begin(), commands.end(), [&](const auto& k) { return k.name == c.name; }))
      commands.push_back(std::move(c));
  std::stable_sort(commands.begin(), commands.end(),
                   [](const auto& a, const auto& b) { return a.order < b.order; });
  std::vector<std::pair<CLI::App*, experiments::CommandRunner>> runners;
  for (const auto& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    runners.emplace_back(sub, c.setup(*sub, global));
  }
  // An unknown command is named, with the closest and the commands there are (CLI11 would only
  // say that a subcommand is required).
  if (argc > 1 && argv[1][0] != '-' &&
      std::none_of(commands.begin(), commands.end(), [&](const auto& c) { return c.name == argv[1]; })) {
    std::vector<std::string> names;
    for (const auto& c : commands) names.push_back(c.name);
    std::cerr << "specdse: error: " << experiments::unknown_command_message(argv[1], names) << "\n";
    return 2;
  }
  // Help and the version go to stdout too: a failed write there is an error like any output's.
  auto printed = [](int status) {
    std::cout.flush();
    if (status == 0 && (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))) {
      std::cerr << "specdse: error: writing to standard output failed: " << std::strerror(errno ? errno : EIO) << "\n";
      return 2;
    }
    return status;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return printed(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return printed(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return printed(app.exit(e));
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return printed(app.exit(e));
    // A misspelt option or command wins over what it caused ("--context is required" after
    // "--contexts 128"): CLI11 checks requirements before it reports words it did not expect.
    if (const std::string unknown = experiments::unknown_argument_message(app); !unknown.empty()) {
      std::cerr << "specdse: error: " << unknown << "\n";
      return 2;
    }
    // CLI11 adds a "Run with --help" line; bad input is one line naming the option (docs/cli.md).
    std::cerr << "specdse: error: " << experiments::with_choice_hint(first_line(e.what())) << " (see --help)\n";
    return 2;
  }
  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) {
        const int status = run();
        // What went to stdout must have arrived: a full disk or a closed stdout under
        // `> results.csv` is an error, not a truncated file reported as success.
        std::cout.flush();
        const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
        if (failed && status == 0) {
          std::cerr << "specdse: error: writing to standard output failed: " << std::strerror(errno ? errno : EIO) << "\n";
          return 2;
        }
        return status;
      }
  } catch (const models::InputError& e) {
    std::cerr << "specdse: error: " << first_line(e.what()) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    // Every size the user controls is bounded or checked against the device's memory; what is
    // left (a huge input file, a request near the limits) is still the input's doing.
    std::cerr << "specdse: error: out of memory on this machine: the request is too large "
                 "(context, batch, sweep or input file)\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user gave that the file system refuses (too long, a component that is a
    // file, no permission): their input, reported as such with the path it names.
    if (e.path1().empty())
      std::cerr << "specdse: error: " << first_line(e.what()) << "\n";
    else
      std::cerr << "specdse: error: " << first_line(e.path1().string().substr(0, 200)) << ": "
                << e.code().message() << "\n";
    return 2;
  } catch (const std::ios_base::failure& e) {
    // A read that failed under a reader that did not name its file (every input opens through
    // models::open_input_file, which names it where the first read fails).
    std::cerr << "specdse: error: reading an input file failed: " << first_line(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "specdse: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
