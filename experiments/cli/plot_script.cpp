#include "experiments/cli/plot_script.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <fmt/core.h>

#include "experiments/cli/cli_common.hpp"
#include "experiments/process/run_process.hpp"
#include "models/config_error.hpp"

namespace experiments {

namespace {

// A plot name is a file name in experiments/plots, never a path out of it.
bool plain_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

std::string last_line(const std::string& text) {
  std::size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  const std::size_t begin = text.rfind('\n', end);
  std::string line = text.substr(begin == std::string::npos ? 0 : begin + 1, end + 1 - (begin == std::string::npos ? 0 : begin + 1));
  constexpr std::size_t kMaxChars = 200;  // one line, not a page
  if (line.size() > kMaxChars) line = line.substr(0, kMaxChars - 3) + "...";
  return line;
}

}  // namespace

PlotScript prepare_plot_script(const std::string& option, const std::string& name, const std::string& python_option) {
  const std::string dir = std::string(SPECDSE_SOURCE_DIR) + "/experiments/plots/";
  if (!plain_name(name) || !std::filesystem::is_regular_file(dir + name + ".py"))
    throw models::InputError(fmt::format("{}: no plot script '{}' in {}", option, name, dir));
  PlotScript p{find_plot_python(python_option), dir + name + ".py"};
  if (p.python.empty())
    throw models::InputError(fmt::format(
        "{}: expected a Python with matplotlib (Debian: python3-matplotlib; or --python PATH), found none", option));
  // One the user named (--python, $SPECDSE_PYTHON) is checked as the search checks its own.
  if ((!python_option.empty() || std::getenv("SPECDSE_PYTHON")) && !runs_matplotlib(p.python))
    throw models::InputError(fmt::format("{}: the Python '{}' does not run or has no matplotlib", option, p.python));
  return p;
}

void run_plot_script(const std::string& option, const PlotScript& plot, const std::vector<std::string>& args,
                     bool quiet) {
  std::vector<std::string> argv = {plot.python, plot.script};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions o;
  o.out = quiet ? Stream::null : Stream::to_stderr;
  o.err = Stream::capture;
  const ProcessResult r = run_process(argv, o);
  if (r.status == 0) {
    // Warnings a working script printed still reach the user, unless asked for quiet.
    if (!quiet && !r.output.empty()) std::cerr << r.output;
    return;
  }
  const std::string why = last_line(r.output);
  throw models::InputError(fmt::format("{}: the plot script {} failed (exit {}){}", option, plot.script, r.status,
                                       why.empty() ? "" : ": " + why));
}

}  // namespace experiments
