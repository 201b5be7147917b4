// specdse sweep --plot finds a Python with matplotlib instead of assuming /usr/bin/python3:
// --python is used as given; a Python that cannot run is refused before the sweep (exit 2, no CSV);
// a script that fails is one line (exit 2) and the sweep's rows stay.
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
  // An interpreter that does not exist: refused before the sweep runs (exit 2), nothing written.
  CHECK(run({"sweep", "--quiet", "--spec", spec, "--out", (d / "a.csv").string(), "--plot", "--python",
             "/nonexistent/python3"}) == 2);
  CHECK_FALSE(fs::exists(d / "a.csv"));
  CHECK_FALSE(fs::exists(d / "a.png"));
  // A script that fails after the sweep: exit 2, one line, the rows kept (they are the sweep's result).
  const auto fake = d / "fake_python.sh";
  std::ofstream(fake) << "#!/bin/sh\ncase \"$1\" in -c) exit 0;; esac\necho 'Traceback:' >&2\n"
                         "echo 'OSError: disk' >&2\nexit 3\n";
  fs::permissions(fake, fs::perms::owner_all);
  experiments::ProcessOptions capture;
  capture.out = experiments::Stream::null;
  capture.err = experiments::Stream::capture;
  const auto failed = experiments::run_process({SPECDSE_SPECDSE_EXE, "sweep", "--quiet", "--spec", spec, "--out",
                                                (d / "c.csv").string(), "--plot", "--python", fake.string()},
                                               capture);
  CHECK(failed.status == 2);
  CHECK(failed.output == "specdse: error: --plot: the plot script " SPECDSE_SOURCE_DIR
                         "/experiments/plots/sweep_regimes.py failed (exit 3): OSError: disk (the sweep's rows are kept in " +
                             (d / "c.csv").string() + ")\n");
  CHECK(fs::exists(d / "c.csv"));
  // A plot name that is a path out of experiments/plots is refused.
  std::ofstream(d / "bad.yaml") << "plot: ../sweep_regimes\naxes:\n  hardware: v80\n  model: llama-3.1-8b-instruct\n"
                                   "  algorithm: longspec-tree\n  context: [1024]\n";
  CHECK(run({"sweep", "--quiet", "--spec", (d / "bad.yaml").string(), "--out", (d / "e.csv").string(), "--plot"}) == 2);
  CHECK_FALSE(fs::exists(d / "e.csv"));
  // The default: $SPECDSE_PYTHON or the first python3 (PATH, then the system's) with matplotlib.
  if (has_matplotlib("python3") || has_matplotlib("/usr/bin/python3") || has_matplotlib("/usr/local/bin/python3")) {
    CHECK(run({"sweep", "--quiet", "--spec", spec, "--out", (d / "b.csv").string(), "--plot"}) == 0);
    CHECK(fs::file_size(d / "b.png") > 1000);
    CHECK(fs::file_size(d / "b.pdf") > 1000);  // a PDF beside every PNG
  }
  fs::remove_all(d);
}
