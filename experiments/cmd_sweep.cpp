// specdse sweep --spec F: the Cartesian product of a sweep spec's axes (hardware keys, model,
// algorithm, task, context, batch), each point optimised (best x, speedup over AD) in parallel.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "experiments/cli_common.hpp"
#include "experiments/sweep_runner.hpp"
#include "models/config_error.hpp"

namespace experiments {
namespace {

struct SweepArgs {
  std::string spec, out, engine, format;
  unsigned threads = 0;
  bool quiet = false, plot = false;
  CLI::Option* engine_option = nullptr;
  CLI::Option* format_option = nullptr;
};

int run_sweep_command(const SweepArgs& a, const GlobalOptions& g) {
  const auto reg = registry(g);
  const auto spec = load_sweep_spec(a.spec);
  if (a.plot && spec.plot.empty())
    throw models::InputError(fmt::format("{}: plot: expected a plot script name for --plot, got none", a.spec));
  if (a.plot && a.out.empty()) throw models::InputError("--plot: expected --out FILE as well, got no --out");
  SweepRunOptions o;
  o.out_path = a.out;
  o.threads = a.threads;
  o.progress = !a.quiet && ::isatty(STDERR_FILENO);
  o.engine = a.engine_option->count() ? a.engine : "";
  // Without --out the CSV streams to stdout as rows finish; --format table/json print at the end.
  const bool explicit_format = a.format_option->count() > 0;
  const std::string format = explicit_format ? a.format : (a.out.empty() ? "csv" : "");
  Table rows({});
  if (format == "csv") o.stream = &std::cout;
  const auto stats = run_sweep(spec, reg, o, format == "table" || format == "json" ? &rows : nullptr);
  if (format == "table" || format == "json") print_table(rows, format);
  if (!a.quiet)
    std::cerr << fmt::format("specdse: sweep {}: {} points ({} resumed, {} computed) on {} thread(s) in {:.2f} s{}\n",
                             spec.name, stats.total, stats.reused, stats.computed, stats.threads, stats.wall_s,
                             a.out.empty() ? "" : " -> " + a.out);
  if (a.plot) {
    const std::string script = std::string(SPECDSE_SOURCE_DIR) + "/experiments/plots/" + spec.plot + ".py";
    const auto png = std::filesystem::path(a.out).replace_extension(".png").string();
    auto dir = std::filesystem::path(a.out).parent_path().string();
    if (dir.empty()) dir = ".";
    // Same convention as `specdse reproduce`: SCRIPT OUT_DIR [ARGS...].
    const std::string cmd = "/usr/bin/python3 '" + script + "' '" + dir + "' '" + a.out + "' '" + png + "'" +
                            (a.quiet ? " >/dev/null 2>&1" : " >&2");
    if (std::system(cmd.c_str()) != 0) {
      std::cerr << "specdse: warning: plot script failed: " << script << "\n";
      return 1;
    }
    if (!a.quiet) std::cerr << "specdse: plot -> " << png << "\n";
  }
  return 0;
}

const RegisterCommand reg{
    "sweep",
    "Sweep a spec's axes (hardware keys, model, algorithm, context, batch): best x and speedup per point",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<SweepArgs>();
      sub.footer(
          "The spec is YAML: `axes:` maps hardware, model, algorithm, task, source_table, context, batch or "
          "any numeric key of the hardware YAML (dotted, e.g. memory.bandwidth_gbs) to a value, a list or "
          "{from, to, count, scale: linear|log}; see configs/sweeps/. Rows come out in index order whatever "
          "--threads is; with --out an interrupted sweep resumes after its last complete row.");
      sub.add_option("--spec", a->spec, "Sweep spec YAML (e.g. configs/sweeps/compute_bandwidth_ratio.yaml)")
          ->required();
      sub.add_option("--out", a->out, "CSV file: rows are appended as they finish; an existing partial file of "
                                      "the same spec is resumed");
      sub.add_option("--threads", a->threads, "Worker threads (default: all cores)")->default_val(0);
      sub.add_flag("--quiet", a->quiet, "No progress bar or summary on stderr");
      sub.add_flag("--plot", a->plot, "Run the spec's plot script on --out, writing a PNG beside it");
      add_engine_option(sub, a->engine);
      a->engine_option = sub.get_option("--engine");
      add_format_option(sub, a->format);
      a->format_option = sub.get_option("--format");
      return [a, &g] { return run_sweep_command(*a, g); };
    },
    80};

}  // namespace
}  // namespace experiments
