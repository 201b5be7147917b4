// specdse reproduce NAME|all: paper tables and figures into <out>/<name>/.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <iostream>
#include <thread>

#include "experiments/cli/cli_common.hpp"
#include "experiments/output/output_lock.hpp"
#include "experiments/cli/plot_script.hpp"
#include "experiments/reproductions/manifest.hpp"
#include "experiments/reproductions/repro_support.hpp"
#include "experiments/reproductions/reproduction.hpp"
#include "experiments/sweep/process_pool.hpp"
#include "models/closest_name.hpp"
#include "models/config_error.hpp"
#include "sim/io/json_string.hpp"

namespace experiments {
namespace {

struct ReproduceArgs {
  std::string name, engine, out = "notebooks_out", format;
  bool no_plots = false;
  bool quiet = false;
  unsigned jobs = 0;  // 0: all cores
};

// Plots are a reproduction's extras, drawn unless --no-plots: a failed one is a one-line warning
// (the script's last line), not a failed reproduction. (--plot on sweep and the scenario commands
// asks for the plot, so there a failure is an error.)
void run_plot(const PlotRequest& p, const std::string& python, const std::string& out_dir, bool quiet) {
  if (python.empty()) {
    if (!quiet) std::cerr << "specdse: note: no Python with matplotlib found (set SPECDSE_PYTHON); skipping plot "
                          << p.script << "\n";
    return;
  }
  std::vector<std::string> args = {out_dir};
  args.insert(args.end(), p.args.begin(), p.args.end());
  try {
    run_plot_script("plot", PlotScript{python, p.script}, args, quiet);
  } catch (const models::InputError& e) {
    if (!quiet) std::cerr << "specdse: warning: " << e.what() << "\n";
  }
}

// What one reproduction prints: its stdout part (the table, or its JSON rows with all --format
// json) and its progress line for stderr.
struct ReproductionOutput {
  std::string out, progress;
  // One string through a worker process's pipe (experiments/sweep/process_pool.hpp).
  static constexpr char kSeparator = '\x1e';
  std::string pack() const { return out + kSeparator + progress; }
  static ReproductionOutput unpack(const std::string& s) {
    const auto k = s.rfind(kSeparator);
    return {s.substr(0, k), k == std::string::npos ? "" : s.substr(k + 1)};
  }
};

// Runs one reproduction and writes its files (CSV, Markdown, manifest, plots) under out/name/.
ReproductionOutput run_one(const Reproduction& r, const ReproduceArgs& a, const models::ConfigRegistry& reg,
                           const std::string& python) {
  const auto t0 = std::chrono::steady_clock::now();
  ReproduceContext ctx;
  ctx.registry = &reg;
  ctx.engine = a.engine;
  ctx.out_dir = a.out + "/" + r.name;
  ctx.quiet = a.quiet;
  ReproductionResult res = r.run(ctx);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // A write that fails (a full disk, a file-size limit) takes back the files and folders this run
  // created, so a failed reproduction leaves the folder as it found it (a file it replaced has
  // its new contents: each write is whole or not at all).
  namespace fs = std::filesystem;
  std::vector<std::string> created;
  std::vector<std::string> new_folders;
  for (fs::path f = ctx.out_dir; !f.empty() && !fs::exists(f); f = f.parent_path()) new_folders.push_back(f.string());
  auto write = [&](const std::string& path, const std::string& text) {
    const bool existed = fs::exists(path);
    write_file_atomic(path, text);
    if (!existed) created.push_back(path);
  };
  try {
    write(ctx.out_dir + "/" + r.name + ".csv", res.table.to_string(OutputFormat::csv));
    for (const auto& [file, t] : res.extra_csvs) write(ctx.out_dir + "/" + file, t.to_string(OutputFormat::csv));
    write(ctx.out_dir + "/" + r.name + ".md",
          "# " + res.title + "\n\n" + res.table.to_markdown() + "\n" + res.notes + "\n");
    ManifestInfo m{r.name, res.title, a.engine, reg.dir(), res.inputs, {r.name + ".csv", r.name + ".md"}};
    for (const auto& extra : res.extra_csvs) m.outputs.push_back(extra.first);
    // Same results at another commit: the manifest on disk stays, so the user's tree stays clean.
    const std::string manifest_path = ctx.out_dir + "/manifest.txt", manifest = manifest_yaml(m);
    std::ifstream existing(manifest_path, std::ios::binary);
    const std::string old((std::istreambuf_iterator<char>(existing)), std::istreambuf_iterator<char>());
    if (!existing || !manifest_unchanged(old, manifest)) write(manifest_path, manifest);
  } catch (...) {
    std::error_code ec;
    for (const auto& f : created) fs::remove(f, ec);
    for (const auto& d : new_folders) fs::remove(d, ec);  // innermost first; a folder with files stays
    throw;
  }
  if (!a.no_plots)
    for (const auto& p : reproduction_plots(r.name, res)) run_plot(p, python, ctx.out_dir, a.quiet);
  ReproductionOutput o;
  if (a.name == "all" && a.format == "json") {
    o.out = res.table.to_string(OutputFormat::json);
    while (!o.out.empty() && o.out.back() == '\n') o.out.pop_back();
  } else if (a.name != "all" || a.format == "table") {
    if (a.format == "table") o.out = text_notes("== " + res.title + " ==") + "\n";
    o.out += res.table.to_string(parse_format(a.format));
    if (a.format == "table" && !res.notes.empty()) o.out += text_notes(res.notes) + "\n";
  }
  if (!a.quiet) o.progress = fmt::format("specdse: {} done in {:.2f} s -> {}\n", r.name, wall, ctx.out_dir);
  return o;
}

int run_reproduce(const ReproduceArgs& a, const GlobalOptions& g) {
  const auto reg = registry(g);
  auto table = reproduction_table();
  std::stable_sort(table.begin(), table.end(), [](const auto& x, const auto& y) { return x.order < y.order; });
  std::vector<const Reproduction*> chosen;
  for (const auto& r : table)
    if (a.name == "all" || r.name == a.name) chosen.push_back(&r);
  if (chosen.empty()) {
    std::vector<std::string> names;
    for (const auto& r : table) names.push_back(r.name);
    throw models::InputError(fmt::format("reproduce: unknown name '{}'{}; available: all, {}", a.name,
                                         models::did_you_mean(a.name, names), fmt::join(names, ", ")));
  }
  // One CSV holds one table, so `all --format csv` prints none and says where they are.
  if (a.name == "all" && a.format == "csv" && !a.quiet)
    std::cerr << fmt::format("specdse: note: reproduce all --format csv writes each table to {}/<name>/<name>.csv "
                             "and prints none (--format json prints them all)\n", a.out);
  // One run per output folder at a time: two at once would mix their files (a second one is
  // refused with exit 2); also the first check that --out can be written at all.
  const OutputLock out_lock(OutputLock::for_folder(a.out), a.out);
  const std::string python = a.no_plots ? "" : find_plot_python();  // probed once, before any fork
  // Output in the order of `chosen`, whichever worker finishes first; with all --format json
  // one JSON object, reproduction name -> its table's rows.
  std::string all_json;
  auto emit = [&](std::size_t k, const ReproductionOutput& o) {
    if (a.name == "all" && a.format == "json")
      all_json += fmt::format("{}\n  {}: {}", all_json.empty() ? "{" : ",", sim::json_string(chosen[k]->name), o.out);
    else
      std::cout << o.out << std::flush;
    std::cerr << o.progress;
  };
  const unsigned jobs = std::max(1u, a.jobs ? a.jobs : std::thread::hardware_concurrency());
  if (chosen.size() > 1 && jobs > 1 && fork_is_safe()) {
    // Reproductions are independent (each writes only its own folder), so worker processes run
    // them side by side; their files and printed tables are the same as one after another.
    // The long-running ones start first (Reproduction::long_running), the rest in order.
    run_in_worker_processes(  // delivers the outputs in the order of `chosen`
        chosen.size(), jobs, [&](std::size_t k) { return run_one(*chosen[k], a, reg, python).pack(); },
        [&](std::size_t k, const std::string& packed) { emit(k, ReproductionOutput::unpack(packed)); },
        start_order(chosen));
  } else {
    for (std::size_t k = 0; k < chosen.size(); ++k) emit(k, run_one(*chosen[k], a, reg, python));
  }
  if (!all_json.empty()) std::cout << all_json << "\n}\n";
  return 0;
}

const RegisterCommand reproduce_registration{
    "reproduce", "Reproduce a paper table or figure (or all): CSV, Markdown, manifest and plots",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<ReproduceArgs>();
      sub.add_option("name", a->name, "What to reproduce (e.g. table1), or all")->required();
      sub.add_option("--out", a->out, "Output folder; results go to <out>/<name>/")->default_val("notebooks_out");
      sub.add_flag("--no-plots", a->no_plots, "Skip the matplotlib figures");
      sub.add_flag("--quiet", a->quiet, "No progress lines on stderr");
      sub.add_option("--jobs", a->jobs,
                     "With all: reproductions run side by side in this many worker processes (default: all cores; "
                     "1: one after another); files and output are the same either way")
          ->check(integer_in(1, kMaxThreads));
      add_engine_option(sub, a->engine);
      add_format_option(sub, a->format);
      sub.get_option("--format")->description(
          "Output format: table, csv or json (with all: table prints every table, json one object of "
          "all tables, csv only writes the files; files are written in every format)");
      return [a, &g, &sub] {
        // Worker processes run reproductions side by side: one reproduction has nothing to share out.
        if (sub.count("--jobs") > 0 && a->name != "all")
          throw models::InputError(fmt::format("--jobs: runs the reproductions of `all` side by side; {} is one",
                                               a->name));
        return run_reproduce(*a, g);
      };
    },
    90};

}  // namespace
}  // namespace experiments
