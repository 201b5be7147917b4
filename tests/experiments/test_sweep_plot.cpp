// specdse sweep --plot finds a Python with matplotlib instead of assuming /usr/bin/python3:
// --python is used as given, and a Python that cannot run the script is a failed plot (exit 1)
// with the CSV still written.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "experiments/process/run_process.hpp"

namespace fs = std::filesystem;

namespace {

// Runs specdse with `args` (no shell: a path with spaces is one argument), output discarded.
int run(std::vector<std::string> args) {
  args.insert(args.begin(), SPECDSE_SPECDSE_EXE);
  experiments::ProcessOptions quiet;
  quiet.out = quiet.err = experiments::Stream::null;
  return experiments::run_process(args, quiet).status;
}

bool has_matplotlib(const std::string& python) {
  experiments::ProcessOptions quiet;
  quiet.out = quiet.err = experiments::Stream::null;
  return experiments::run_process({python, "-c", "import matplotlib"}, quiet).status == 0;
}

}  // namespace

TEST_CASE("sweep --plot: --python is the interpreter used, and the default finds one with matplotlib",
          "[sweep][plot]") {
  const auto d = fs::temp_directory_path() / ("specdse_test_sweep_plot_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  std::ofstream(d / "s.yaml") << "name: plot_small\nplot: sweep_regimes\nx_max: 32\naxes:\n  hardware: v80\n"
                                 "  model: llama-3.1-8b-instruct\n  algorithm: longspec-tree\n  source_table: t3-4\n"
                                 "  context: [1024]\n  memory.bandwidth_gbs: [100, 1000, 10000]\n";
  const std::string spec = (d / "s.yaml").string();
  // An interpreter that does not exist: the plot fails (exit 1), the CSV is there.
  CHECK(run({"sweep", "--quiet", "--spec", spec, "--out", (d / "a.csv").string(), "--plot", "--python",
             "/nonexistent/python3"}) == 1);
  CHECK(fs::exists(d / "a.csv"));
  CHECK_FALSE(fs::exists(d / "a.png"));
  // The default: $SPECDSE_PYTHON or the first python3 (PATH, then the system's) with matplotlib.
  if (has_matplotlib("python3") || has_matplotlib("/usr/bin/python3") || has_matplotlib("/usr/local/bin/python3")) {
    CHECK(run({"sweep", "--quiet", "--spec", spec, "--out", (d / "b.csv").string(), "--plot"}) == 0);
    CHECK(fs::file_size(d / "b.png") > 1000);
    CHECK(fs::file_size(d / "b.pdf") > 1000);  // a PDF beside every PNG
  }
  fs::remove_all(d);
}
