#include "experiments/cli/unknown_arguments.hpp"

#include <fmt/format.h>

#include <cctype>

#include "models/closest_name.hpp"

namespace experiments {
namespace {

// An option-like word: "-x", "--name", "--name=value"; not a negative number ("-5", "-0.5"),
// which CLI11 reads as a value.
bool looks_like_option(const std::string& word) {
  if (word.size() < 2 || word[0] != '-') return false;
  if (word == "--") return false;
  const char c = word[1];
  return !(std::isdigit(static_cast<unsigned char>(c)) || c == '.');
}

// Words are shown at most 80 characters long (fuzzed input can be kilobytes).
std::string shown(const std::string& word) {
  constexpr std::size_t kMaxShown = 80;
  return word.size() <= kMaxShown ? word : word.substr(0, kMaxShown) + "...";
}

// The subcommand chain that was chosen, deepest last.
std::vector<const CLI::App*> chosen_chain(const CLI::App& app) {
  std::vector<const CLI::App*> chain{&app};
  for (;;) {
    const CLI::App* deepest = chain.back();
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : deepest->get_subcommands([](const CLI::App*) { return true; }))
      if (sub->parsed() && !sub->get_name().empty()) next = sub;
    if (!next) break;
    chain.push_back(next);
  }
  return chain;
}

std::string command_path(const std::vector<const CLI::App*>& chain) {
  std::string path;
  for (std::size_t i = 1; i < chain.size(); ++i) path += (path.empty() ? "" : " ") + chain[i]->get_name();
  return path;
}

}  // namespace

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options([](const CLI::Option*) { return true; })) {
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    for (const auto& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::string unknown_argument_message(const CLI::App& app) {
  const auto chain = chosen_chain(app);
  // Every chosen level's leftovers (CLI11 keeps what a subcommand did not match on that
  // subcommand), the deepest first: that is where the misspelt option was meant for.
  for (std::size_t i = chain.size(); i-- > 0;) {
    const CLI::App* level = chain[i];
    for (const auto& word : level->remaining(false)) {
      if (!looks_like_option(word)) continue;
      const std::string flag = word.substr(0, word.find('='));
      // The options of this level and of the levels above it (global options such as
      // --config-dir go before the subcommand, but a guess may still name them).
      std::vector<std::string> known = option_names(*level);
      for (std::size_t j = i; j-- > 0;) {
        const auto above = option_names(*chain[j]);
        known.insert(known.end(), above.begin(), above.end());
      }
      const std::string path = command_path(std::vector<const CLI::App*>(chain.begin(), chain.begin() + i + 1));
      const std::string guess = models::closest_name(flag, known);
      return fmt::format("unknown option '{}'{}{}", shown(flag), path.empty() ? "" : " for '" + path + "'",
                         guess.empty() ? fmt::format(" (see specdse {}--help)", path.empty() ? "" : path + " ")
                                       : fmt::format(" (did you mean '{}'?)", guess));
    }
  }
  // No subcommand chosen: a leftover word at the top level is a command that does not exist.
  if (chain.size() == 1) {
    std::vector<std::string> commands;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      if (!sub->get_name().empty()) commands.push_back(sub->get_name());
    for (const auto& word : app.remaining(false))
      if (!looks_like_option(word)) return unknown_command_message(word, commands);
  }
  return "";
}

std::string with_choice_hint(const std::string& message) {
  // "OPTION: VALUE not in {A,B,C}" (CLI::IsMember's ValidationError).
  const std::string marker = " not in {";
  const auto at = message.find(marker);
  const auto colon = message.find(": ");
  const auto close = message.find('}', at == std::string::npos ? 0 : at);
  if (at == std::string::npos || colon == std::string::npos || colon > at || close == std::string::npos) return message;
  const std::string value = message.substr(colon + 2, at - colon - 2);
  std::vector<std::string> choices;
  const std::string list = message.substr(at + marker.size(), close - at - marker.size());
  for (std::size_t start = 0; start <= list.size();) {
    const auto comma = list.find(',', start);
    choices.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return message.substr(0, close + 1) + models::did_you_mean(value, choices) + message.substr(close + 1);
}

std::string unknown_command_message(const std::string& word, const std::vector<std::string>& commands) {
  std::string names;
  for (const auto& c : commands) names += (names.empty() ? "" : ", ") + c;
  const std::string guess = models::closest_name(word, commands);
  return fmt::format("unknown command '{}' ({}commands: {})", shown(word),
                     guess.empty() ? "" : fmt::format("did you mean '{}'?; ", guess), names);
}

}  // namespace experiments
