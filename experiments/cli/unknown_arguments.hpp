#pragma once
// Unknown command-line words named with the closest known one. CLI11 checks required options
// before it reports words it did not expect, so a misspelt `--contexts 128` would read
// "--context is required"; after any parse error the words left over are checked first, and an
// unknown option or command is what the user is told about.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace experiments {

// The option names of a (sub)command as typed: "--context", "-x", ...
std::vector<std::string> option_names(const CLI::App& app);

// One line for the first unknown option (or, with no subcommand chosen, unknown command) among
// the words `app` left over after a parse, with the closest known one: "unknown option
// '--contexts' for 'optimize' (did you mean '--context'?)". Empty when nothing was left over
// or what was left over is only values.
std::string unknown_argument_message(const CLI::App& app);

// CLI11's "--engine: sims not in {roofline,sim,sim-clocked}" with the closest choice added
// ("(did you mean 'sim'?)"); any other message unchanged.
std::string with_choice_hint(const std::string& message);

// One line for a first word that names no subcommand: "unknown command 'optimise' (did you
// mean 'optimize'?; commands: ...)".
std::string unknown_command_message(const std::string& word, const std::vector<std::string>& commands);

}  // namespace experiments
