#pragma once
// The plot scripts (experiments/plots/NAME.py), run the same way by every command that plots:
// found and checked before the work, so a missing Python or script fails before anything is
// computed or written; run as SCRIPT OUT_DIR ARGS...; a failure is one line naming the script,
// its exit status and the last line it printed (a Matplotlib traceback's last line is its error).
#include <string>
#include <vector>

namespace experiments {

struct PlotScript {
  std::string python;  // with matplotlib
  std::string script;  // absolute path of experiments/plots/NAME.py
};

// `option` is the flag the user gave (--plot), `name` the script's name (NAME of NAME.py),
// `python_option` --python's value. Throws InputError when the name is not a shipped script or
// no Python with matplotlib is found.
PlotScript prepare_plot_script(const std::string& option, const std::string& name, const std::string& python_option);

// Runs the script with `args` after it. Its stdout goes to stderr (stdout stays parseable) unless
// `quiet`; its stderr is kept and, on failure, its last line goes into the InputError.
void run_plot_script(const std::string& option, const PlotScript& plot, const std::vector<std::string>& args,
                     bool quiet);

}  // namespace experiments
