// specdse sweep --spec F: the Cartesian product of a sweep spec's axes (hardware keys, model,
// algorithm, task, context, batch), each point optimised (best x, speedup over AD) in parallel.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <tuple>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "experiments/cli/cli_common.hpp"
#include "experiments/output/output_lock.hpp"
#include "sim/io/output_path.hpp"
#include "experiments/cli/plot_script.hpp"
#include "experiments/sweep/scenario_sweep.hpp"
#include "experiments/sweep/sweep_runner.hpp"
#include "models/config_error.hpp"
#include "models/input_file.hpp"

#ifdef SPECDSE_MPI
#include <mpi.h>
#endif

namespace experiments {
namespace {

struct SweepArgs;
void run_plot(const SweepArgs& a, const PlotScript& plot);

struct SweepArgs {
  std::string spec, out, engine, format, shard;
  std::string merge_out, merge_spec, python;
  std::vector<std::string> merge_shards;
  CLI::App* merge = nullptr;
  unsigned threads = 0;
  bool quiet = false, plot = false;
  CLI::Option* engine_option = nullptr;
  CLI::Option* format_option = nullptr;
};

// "I/N" -> {I, N} with 0 <= I < N.
std::pair<std::size_t, std::size_t> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument("");
    std::size_t u1 = 0, u2 = 0;
    const long long i = std::stoll(text.substr(0, slash), &u1);
    const long long n = std::stoll(text.substr(slash + 1), &u2);
    if (u1 != slash || u2 != text.size() - slash - 1 || i < 0 || n < 1 || i >= n) throw std::invalid_argument("");
    return {std::size_t(i), std::size_t(n)};
  } catch (const std::exception&) {
    throw models::InputError(fmt::format("--shard: expected I/N with 0 <= I < N (e.g. 0/4), got '{}'", text));
  }
}

#ifdef SPECDSE_MPI
// True when a launcher (mpirun/mpiexec, srun with PMI) started this process: only then is MPI
// initialised, so a plain `specdse sweep` never pays for (or depends on) MPI start-up.
bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (const char* e = std::getenv(v); e && *e) return true;
  return false;
}

// MPI_Init/MPI_Finalize as a scope, so an exception between them still finalises.
struct MpiSession {
  int rank = 0, size = 1;
  MpiSession() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);  // only the main thread calls MPI
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

// The sweep over the ranks of MPI_COMM_WORLD: rank 0 reads the resumable prefix of --out; the
// remaining points are dealt round-robin to the ranks (each uses its own threads); rank 0
// gathers the rows, puts them in index order and writes the file atomically, so the bytes are
// those of a single-process run. Every rank validates the whole spec the same way, so a bad
// input fails on all of them before any collective call; an error while computing is agreed
// on by an all-reduce so no rank waits for a peer that gave up.
int run_sweep_mpi(const SweepArgs& a, const models::ConfigRegistry& reg, const SweepSpec& spec,
                  const std::string& format, const MpiSession& mpi) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t total = spec.size();
  std::vector<std::size_t> all(total);
  for (std::size_t i = 0; i < total; ++i) all[i] = i;
  // As a single-process run's (experiments/sweep/sweep_runner.hpp: sweep_fingerprint).
  const std::string fingerprint = sweep_fingerprint(spec, reg);
  std::vector<std::string> done;
  unsigned long long n_done = 0;
  int read_error = 0;
  std::string read_message;
  // Rank 0 writes --out: it holds the output's lock for the whole run (a second writer is refused,
  // as in the threaded path) and resumes from a killed threaded run's journal when there is one.
  std::optional<OutputLock> lock;
  if (mpi.rank == 0) {
    try {
      std::string resume_from = a.out;
      ResumeFile kind = ResumeFile::output;
      if (!a.out.empty()) {
        if (sim::check_output_target(a.out))
          throw models::InputError(fmt::format("{}: is a device; --out takes the sweep's CSV file path (it is read "
                                               "back to resume)", a.out));
        lock.emplace(OutputLock::for_file(a.out), a.out);
        if (sweep_journal_exists(a.out)) resume_from = sweep_journal_path(a.out), kind = ResumeFile::journal;
      }
      std::string dropped;
      done = read_resume_rows(spec, resume_from, all, nullptr, kind, &dropped, a.out.empty() ? "" : fingerprint);
      if (!dropped.empty()) std::cerr << "specdse: warning: " << dropped << "\n";
      n_done = done.size();
    } catch (const models::InputError& e) {
      read_error = 1;
      read_message = e.what();
      // Printed before the broadcast that lets the other ranks go: once one of them exits with
      // status 2, mpiexec kills the job, and a message rank 0 had not written by then (it used
      // to print it after MPI_Finalize) was lost.
      std::cerr << "specdse: error: " << read_message.substr(0, read_message.find('\n')) << std::endl;
    }
  }
  MPI_Bcast(&read_error, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (read_error) return 2;  // rank 0 said why above
  MPI_Bcast(&n_done, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  std::vector<std::size_t> mine;
  for (std::size_t i = std::size_t(n_done) + std::size_t(mpi.rank); i < total; i += std::size_t(mpi.size))
    mine.push_back(i);

  std::vector<std::string> rows;
  int failed = 0;
  std::string message;
  try {
    rows = compute_sweep_rows(spec, reg, mine, a.threads, a.engine_option->count() ? a.engine : "");
  } catch (const std::exception& e) {
    failed = 1;
    message = e.what();
  }
  // As above: a failing rank says why before the collective that lets the others exit.
  if (failed) std::cerr << fmt::format("specdse: error: rank {}: {}", mpi.rank, message) << std::endl;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_failed) return 2;

  std::string payload;
  for (const auto& r : rows) payload += r + "\n";
  const int bytes = int(payload.size());
  std::vector<int> sizes(std::size_t(mpi.size)), offsets(std::size_t(mpi.size));
  MPI_Gather(&bytes, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string gathered;
  if (mpi.rank == 0) {
    long long sum = 0;
    for (int r = 0; r < mpi.size; ++r) {
      offsets[std::size_t(r)] = int(sum);
      sum += sizes[std::size_t(r)];
    }
    gathered.resize(std::size_t(sum));
  }
  MPI_Gatherv(payload.data(), bytes, MPI_CHAR, gathered.data(), sizes.data(), offsets.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  if (mpi.rank != 0) return 0;

  // Rank r computed the points n_done + r, n_done + r + size, ...: deal its rows back.
  std::vector<std::string> lines(total);
  for (std::size_t k = 0; k < done.size(); ++k) lines[k] = done[k];
  for (int r = 0; r < mpi.size; ++r) {
    std::size_t pos = std::size_t(offsets[std::size_t(r)]);
    const std::size_t end = pos + std::size_t(sizes[std::size_t(r)]);
    for (std::size_t i = std::size_t(n_done) + std::size_t(r); i < total && pos < end; i += std::size_t(mpi.size)) {
      const auto eol = gathered.find('\n', pos);
      lines[i] = gathered.substr(pos, eol - pos);
      pos = eol + 1;
    }
  }
  std::string csv = sweep_header(spec) + "\n";
  for (const auto& l : lines) csv += l + "\n";
  if (!a.out.empty()) {
    write_file_atomic(a.out, fingerprint + csv);
    std::error_code ignored;  // the journal's rows are all in --out now
    std::filesystem::remove(sweep_journal_path(a.out), ignored);
  }
  if (format == "csv") std::cout << fingerprint << csv << std::flush;
  if (format == "table" || format == "json") print_table(sweep_rows_table(spec, lines), format);
  if (!a.quiet)
    std::cerr << fmt::format("specdse: sweep {}: {} points ({} resumed, {} computed) on {} MPI ranks in {:.2f} s{}\n",
                             spec.name, total, n_done, total - n_done, mpi.size,
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                             a.out.empty() ? "" : " -> " + a.out);
  return 0;
}
#endif

int run_merge_command(const SweepArgs& a) {
  std::optional<SweepSpec> spec;
  if (!a.merge_spec.empty()) spec = load_sweep_spec(a.merge_spec);
  const auto n = merge_sweep_shards(a.merge_out, a.merge_shards, spec ? &*spec : nullptr);
  if (!a.quiet)
    std::cerr << fmt::format("specdse: sweep merge: {} points from {} shard(s) -> {}\n", n, a.merge_shards.size(),
                             a.merge_out);
  return 0;
}

// A spec with `scenario:` (experiments/sweep/scenario_sweep.hpp): every point a scenario run,
// on threads, rows in index order; written atomically to --out or printed.
int run_scenario_sweep_command(const SweepArgs& a, const models::ConfigRegistry& reg, const ScenarioSweepSpec& spec) {
  if (!a.shard.empty() || a.plot)
    throw models::InputError(fmt::format("{}: a scenario sweep runs whole (no --shard, no --plot)", a.spec));
  ScenarioSweepOptions o;
  o.threads = a.threads;
  o.engine = a.engine_option->count() ? a.engine : "";
  o.progress = !a.quiet && ::isatty(STDERR_FILENO);
  const auto t0 = std::chrono::steady_clock::now();
  const Table rows = run_scenario_sweep(spec, reg, o);
  const std::string format = a.format_option->count() > 0 ? a.format : (a.out.empty() ? "csv" : "");
  if (!a.out.empty()) write_file_atomic(a.out, rows.to_string(OutputFormat::csv));
  if (!format.empty()) print_table(rows, format);
  if (!a.quiet)
    std::cerr << fmt::format("specdse: sweep {}: scenario {}, {} points, {} rows in {:.2f} s{}\n", spec.name,
                             spec.scenario, spec.size(), rows.rows().size(),
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                             a.out.empty() ? "" : " -> " + a.out);
  return 0;
}

int run_sweep_command(const SweepArgs& a, const GlobalOptions& g) {
  if (a.merge->parsed()) return run_merge_command(a);
  if (a.spec.empty()) throw models::InputError("--spec: expected a sweep spec YAML, got none");
  sim::check_run_outputs({{"--out", a.out}}, {{"--spec", a.spec}});
  const auto reg = registry(g);
  if (const auto scenario_spec = load_scenario_sweep_spec(a.spec)) {
#ifdef SPECDSE_MPI
    // A scenario sweep's points are not dealt to MPI ranks: rank 0 runs it on its threads and the
    // others stand by, so the output is written once (every rank printing it garbled stdout).
    if (launched_by_mpi()) {
      MpiSession mpi;
      if (mpi.rank != 0) return 0;
      if (mpi.size > 1 && !a.quiet)
        std::cerr << fmt::format("specdse: sweep {}: a scenario sweep runs on rank 0 only ({} ranks started; "
                                 "--threads sets its workers)\n",
                                 scenario_spec->name, mpi.size);
      return run_scenario_sweep_command(a, reg, *scenario_spec);
    }
#endif
    return run_scenario_sweep_command(a, reg, *scenario_spec);
  }
  auto spec = load_sweep_spec(a.spec);
  // --engine replaces the spec's: the rows' engine column, resume checks and the run agree.
  if (a.engine_option->count()) spec.engine = a.engine;
  if (a.plot && spec.plot.empty())
    throw models::InputError(fmt::format("{}: plot: expected a plot script name for --plot, got none", a.spec));
  if (a.plot && a.out.empty()) throw models::InputError("--plot: expected --out FILE as well, got no --out");
  SweepRunOptions o;
  if (!a.shard.empty()) {
    std::tie(o.shard_index, o.shard_count) = parse_shard(a.shard);
    if (a.out.empty()) throw models::InputError("--shard: expected --out FILE for the shard's rows, got no --out");
    if (a.plot) throw models::InputError("--plot: plot the merged file (specdse sweep merge), not one --shard");
  }
  // The script and a Python for it are found before the sweep runs, not after an hour of it.
  std::optional<PlotScript> plot;
  if (a.plot) {
    plot = prepare_plot_script("--plot", spec.plot, a.python);
    sim::check_output_target(std::filesystem::path(a.out).replace_extension(".png").string());
  }
  o.out_path = a.out;
  o.threads = a.threads;
  o.progress = !a.quiet && ::isatty(STDERR_FILENO);
  o.engine = a.engine_option->count() ? a.engine : "";
  // Without --out the CSV streams to stdout as rows finish; --format table/json print at the end.
  const bool explicit_format = a.format_option->count() > 0;
  const std::string format = explicit_format ? a.format : (a.out.empty() ? "csv" : "");
#ifdef SPECDSE_MPI
  if (launched_by_mpi()) {
    if (!a.shard.empty()) throw models::InputError("--shard: expected either --shard or mpirun, got both");
    MpiSession mpi;
    if (mpi.size > 1) {
      const int rc = run_sweep_mpi(a, reg, spec, format, mpi);
      if (rc != 0 || mpi.rank != 0 || !plot) return rc;
      // rank 0 goes on to the plot below, on the complete file
      run_plot(a, *plot);
      return 0;
    }
  }
#endif
  Table rows({});
  if (format == "csv") o.stream = &std::cout;
  const auto stats = run_sweep(spec, reg, o, format == "table" || format == "json" ? &rows : nullptr);
  // Not a summary, so --quiet keeps it: earlier rows were found damaged and computed again.
  if (!stats.dropped.empty()) std::cerr << "specdse: warning: " << stats.dropped << "\n";
  if (format == "table" || format == "json") print_table(rows, format);
  if (!a.quiet)
    std::cerr << fmt::format("specdse: sweep {}: {} points ({} resumed, {} computed) on {} {} in {:.2f} s{}\n",
                             spec.name, stats.total, stats.reused, stats.computed, stats.threads,
                             stats.worker_processes ? "worker processes" : "thread(s)", stats.wall_s,
                             a.out.empty() ? "" : " -> " + a.out);
  if (plot) run_plot(a, *plot);
  return 0;
}

// The spec's plot script on the finished CSV (SCRIPT OUT_DIR CSV PNG), the PNG beside the CSV.
// A failure is an error (exit 2), and the sweep's rows stay: they are its result and its journal.
void run_plot(const SweepArgs& a, const PlotScript& plot) {
  const auto png = std::filesystem::path(a.out).replace_extension(".png").string();
  auto dir = std::filesystem::path(a.out).parent_path().string();
  if (dir.empty()) dir = ".";
  try {
    run_plot_script("--plot", plot, {dir, a.out, png}, a.quiet);
  } catch (const models::InputError& e) {
    throw models::InputError(fmt::format("{} (the sweep's rows are kept in {})", e.what(), a.out));
  }
  if (!a.quiet) std::cerr << "specdse: plot -> " << png << "\n";
}

const RegisterCommand sweep_registration{
    "sweep",
    "Sweep a spec's axes (hardware keys, model, algorithm, context, batch): best x and speedup per point",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<SweepArgs>();
      sub.footer(
          "The spec is YAML: `axes:` maps hardware, model, algorithm, task, source_table, context, batch or "
          "any numeric key of the hardware YAML (dotted, e.g. memory.bandwidth_gbs) to a value, a list or "
          "{from, to, count, scale: linear|log}; see configs/sweeps/. Rows come out in index order whatever "
          "--threads is; with --out an interrupted sweep resumes after its last complete row. Under "
          "`mpirun -n N` the points are split over the ranks and rank 0 writes the same bytes. A spec with "
          "`scenario:` runs that scenario per point: its file is written once at the end (no resume, no "
          "--shard), and under mpirun on rank 0 alone.");
      sub.add_option("--spec", a->spec, "Sweep spec YAML (e.g. configs/sweeps/compute_bandwidth_ratio.yaml)");
      sub.add_option("--shard", a->shard,
                     "I/N: compute only the points with index % N == I into --out (job arrays; join the shards "
                     "with `specdse sweep merge`); a shard's file resumes like any --out");
      sub.add_option("--out", a->out, "CSV file: rows are appended as they finish; an existing partial file of "
                                      "the same spec is resumed");
      sub.add_option("--threads", a->threads, "Workers (default: all cores): threads, or forked processes on the SystemC engines (sim, sim-clocked), whose simulations would take turns across threads")->check(integer_in(1, kMaxThreads));
      sub.add_flag("--quiet", a->quiet, "No progress bar or summary on stderr");
      sub.add_flag("--plot", a->plot, "Run the spec's plot script on --out, writing a PNG beside it");
      sub.add_option("--python", a->python,
                     "Python for --plot (default: $SPECDSE_PYTHON, else the first python3 with matplotlib)");
      add_engine_option(sub, a->engine);
      a->engine_option = sub.get_option("--engine");
      add_format_option(sub, a->format);
      a->format_option = sub.get_option("--format");
      a->merge = sub.add_subcommand("merge", "Join --shard outputs into one CSV, byte-identical to an unsharded run");
      a->merge->add_option("out", a->merge_out, "Merged CSV (written atomically)")->required();
      a->merge->add_option("shards", a->merge_shards, "Shard CSV files, any order")->required();
      a->merge->add_option("--spec", a->merge_spec,
                           "The sweep spec: also checks that every point is there and matches it");
      a->merge->add_flag("--quiet", a->quiet, "No summary on stderr");
      return [a, &g] { return run_sweep_command(*a, g); };
    },
    80};

}  // namespace
}  // namespace experiments
