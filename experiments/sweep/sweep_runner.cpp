#include "experiments/sweep/sweep_runner.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/draft_placement_options.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "experiments/output/output_lock.hpp"
#include "sim/io/output_path.hpp"
#include "experiments/sweep/process_pool.hpp"
#include "experiments/sweep/sweep_rows.hpp"
#include "models/config_error.hpp"
#include "sim/io/csv.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/optimizer.hpp"
#include "models/system_spec.hpp"
#include "sim/system/system_costs.hpp"

namespace experiments {
// PreparedSweep (sweep_runner.hpp) holds one: named, so the header's struct may hold it.
namespace sweep_detail {

// Everything a point needs, prepared on the main thread (config parsing and Ceres fits stay
// single-threaded; workers only cost graphs).
struct Prepared {
  std::map<std::string, std::shared_ptr<models::HardwareSpec>> hardware;
  std::map<std::string, std::shared_ptr<models::Workload>> workloads;
  struct Aat {
    search::AatSource source;
    long long context = 0;
  };
  std::map<std::string, std::shared_ptr<Aat>> aats;
  std::map<std::string, std::shared_ptr<search::DraftPlacement>> placements;
};
}  // namespace sweep_detail

namespace {
using sweep_detail::Prepared;

std::string hardware_key(const SweepPoint& p) {
  std::string k = p.hardware;
  for (const auto& [key, v] : p.hardware_overrides) k += "|" + key + "=" + v;
  return k;
}
std::string placement_key(const SweepPoint& p) {
  std::string k = p.hardware;
  for (const auto& [key, v] : p.draft_placement) k += "|" + key + "=" + v;
  return k;
}
DraftPlacementNames placement_names(const SweepPoint& p) {
  DraftPlacementNames n;
  for (const auto& [key, v] : p.draft_placement)
    (key == "draft_hw" ? n.draft_hw : key == "draft_link" ? n.draft_link : key == "system" ? n.system : n.draft_device) = v;
  return n;
}
std::string workload_key(const SweepPoint& p) { return fmt::format("{}|{}|{}", p.model, p.algorithm, p.batch); }
std::string aat_key(const SweepPoint& p) {
  return fmt::format("{}|{}|{}|{}|{}", p.algorithm, p.model, p.task, p.source_table, p.context);
}

// AAT of the measured context nearest to the point's (the data has a handful of contexts).
std::shared_ptr<Prepared::Aat> prepare_aat(const search::AcceptanceData& data, const SweepPoint& p,
                                           const std::string& spec_path) {
  search::AatQuery q;
  q.algorithm = p.algorithm;
  q.target_model = p.model;
  q.task = p.task;
  if (!p.source_table.empty()) q.source_table = p.source_table;
  const auto contexts = data.contexts(q);
  if (contexts.empty())
    throw models::InputError(fmt::format("{}: axes: no AAT measurements in {} for algorithm {}, model {}, task {}{}",
                                         spec_path, data.path(), p.algorithm, p.model, p.task,
                                         p.source_table.empty() ? "" : ", source_table " + p.source_table));
  long long best = contexts.front();
  for (long long c : contexts)
    if (std::llabs(c - p.context) < std::llabs(best - p.context)) best = c;
  auto a = std::make_shared<Prepared::Aat>();
  a->context = best;
  a->source = aat_source(data, {p.algorithm, p.model, p.task, p.source_table}, best);
  return a;
}

class ProgressBar {
 public:
  ProgressBar(bool enabled, std::size_t total, std::size_t done)
      : enabled_(enabled), total_(total), start_done_(done), start_(std::chrono::steady_clock::now()) {}
  void update(std::size_t done) {
    if (!enabled_ || total_ == 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (done < total_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const std::size_t new_done = done - start_done_, left = total_ - done;
    const double eta = new_done ? elapsed / double(new_done) * double(left) : 0.0;
    const int width = 30, filled = int(double(width) * double(done) / double(total_));
    std::fprintf(stderr, "\r[%s%s] %zu/%zu %3.0f%% %.1f s, ETA %.1f s ", std::string(filled, '#').c_str(),
                 std::string(width - filled, '.').c_str(), done, total_, 100.0 * double(done) / double(total_),
                 elapsed, eta);
    if (done == total_) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  bool enabled_;
  std::size_t total_, start_done_;
  std::chrono::steady_clock::time_point start_, last_{};
};

}  // namespace

std::vector<std::string> sweep_columns(const SweepSpec& spec) {
  auto cols = point_column_names(spec);
  cols.insert(cols.end(), kResultColumns.begin(), kResultColumns.end());
  return cols;
}

std::vector<std::size_t> shard_indices(std::size_t total, std::size_t shard_index, std::size_t shard_count) {
  if (shard_count == 0 || shard_index >= shard_count)
    throw models::InputError(fmt::format("--shard: expected I/N with 0 <= I < N, got {}/{}", shard_index, shard_count));
  std::vector<std::size_t> out;
  for (std::size_t i = shard_index; i < total; i += shard_count) out.push_back(i);
  return out;
}

std::string sweep_header(const SweepSpec& spec) { return sim::csv_line(sweep_columns(spec)); }

Table sweep_rows_table(const SweepSpec& spec, const std::vector<std::string>& lines) {
  Table t(sweep_columns(spec));
  for (const auto& line : lines) {
    std::vector<Cell> cells;
    for (auto& c : sim::csv_split(line)) cells.push_back(text(c));
    t.add_row(std::move(cells));
  }
  return t;
}

bool sweep_uses_processes(const std::string& engine, unsigned workers) {
  return workers > 1 && (engine == "sim" || engine == "sim-clocked") && fork_is_safe();
}

struct PreparedSweep {
  Prepared inputs;
};

std::shared_ptr<const PreparedSweep> prepare_sweep(const SweepSpec& spec, const models::ConfigRegistry& reg,
                                                   const std::string& engine_override) {
  const std::string engine_name = engine_override.empty() ? spec.engine : engine_override;
  // Every point, not only a shard's: the whole spec is validated the same way in every shard or rank.
  const auto data = search::AcceptanceData::load(reg.dir() + "/acceptance/aat_measurements.csv");
  auto prepared = std::make_shared<PreparedSweep>();
  Prepared& prep = prepared->inputs;
  for (std::size_t i = 0; i < spec.size(); ++i) {
    const SweepPoint p = spec.point(i);
    const auto hk = hardware_key(p);
    if (!prep.hardware.count(hk))
      prep.hardware[hk] = std::make_shared<models::HardwareSpec>(load_hardware_with_overrides(
          reg.path("hardware", p.hardware), p.hardware_overrides, spec.path + ": axes"));
    const auto wk = workload_key(p);
    if (!prep.workloads.count(wk))
      prep.workloads[wk] = std::make_shared<models::Workload>(make_workload(reg, p.model, p.algorithm, p.batch));
    const auto ak = aat_key(p);
    if (!prep.aats.count(ak)) prep.aats[ak] = prepare_aat(data, p, spec.path);
    const auto pk = placement_key(p);
    if (!prep.placements.count(pk))
      prep.placements[pk] = std::make_shared<search::DraftPlacement>(
          resolve_draft_placement(reg, placement_names(p), engine_name, p.hardware));
  }
  return prepared;
}

std::vector<std::string> compute_sweep_rows(
    const SweepSpec& spec, const models::ConfigRegistry& reg, const std::vector<std::size_t>& indices,
    unsigned threads_wanted, const std::string& engine_override,
    const std::function<void(std::size_t, const std::string&)>& on_row,
    std::shared_ptr<const PreparedSweep> prepared) {
  const std::string engine_name = engine_override.empty() ? spec.engine : engine_override;
  const auto columns = sweep_columns(spec);
  if (!prepared) prepared = prepare_sweep(spec, reg, engine_override);
  const Prepared& prep = prepared->inputs;

  // One deployment per hardware configuration (a one-device sim::SystemCosts), shared by its
  // points (and threads: the memos are locked): the points of one board at other contexts or
  // models reuse whatever does not depend on them, e.g. the SystemC model's LM-head steps for
  // every x. The engine handed out keeps its deployment alive (shared_ptr aliasing).
  std::mutex engines_mutex;
  std::map<std::string, std::shared_ptr<const models::LatencyEngine>> engines;
  auto engine_for = [&](const SweepPoint& p, const models::HardwareSpec& hw) {
    std::lock_guard<std::mutex> lock(engines_mutex);
    std::shared_ptr<const models::LatencyEngine>& e = engines[hardware_key(p)];
    if (!e) {
      std::shared_ptr<const sim::SystemCosts> device = sim::deploy_device(hw, engine_name);
      e = std::shared_ptr<const models::LatencyEngine>(device, &device->engine(0));
    }
    return e;
  };

  auto compute = [&](std::size_t index) {
    SweepPoint p = spec.point(index);
    p.engine = engine_name;  // the engine that times it, whichever way it was chosen
    const auto& hw = *prep.hardware.at(hardware_key(p));
    const auto& w = *prep.workloads.at(workload_key(p));
    const auto& aat = *prep.aats.at(aat_key(p));
    auto cells = point_cells(p);
    const double bw = hw.peak_bandwidth_bytes();
    // A point whose largest step does not fit the device's memory is a result with a status,
    // not a time: the numeric cells stay empty.
    sim::MemoryQuery mq;
    mq.batch = w.batch;
    mq.step_tokens = spec.x_max;
    mq.kv_tokens = p.context + spec.x_max;
    // The device's deployment holds the target and what its algorithm drafts with: a standalone
    // draft model or a head beside it.
    sim::DraftHead head;
    head.algorithm = w.algorithm.get();
    head.device = 0;
    const models::ModelSpec* draft = w.algorithm && w.algorithm->draft.model ? &*w.algorithm->draft.model : nullptr;
    const sim::DeviceMemory memory =
        sim::SystemCosts(models::single_device_system(hw), "roofline").memory(w.target, draft, mq, 0, head).front();
    if (!memory.fits()) {
      std::vector<Cell> result = {num(hw.peak_flops() / 1e12), num(bw / 1e9), num(hw.peak_flops() / bw),
                                  integer(aat.context)};
      for (std::size_t k = result.size(); k + 1 < kResultColumns.size(); ++k) result.push_back(text(""));
      result.push_back(text(sim::fit_status(memory)));
      cells.insert(cells.end(), result.begin(), result.end());
      return csv_row(columns, std::move(cells));
    }
    const auto engine = engine_for(p, hw);
    search::OptimizeOptions opt;
    opt.full_curve = spec.every_x;
    opt.x_max = spec.x_max;
    opt.draft_placement = *prep.placements.at(placement_key(p));
    const auto r = search::optimize_context(*engine, w, p.context, aat.source, opt);
    // The observed outcome, in the terms of paper 000 §III-B: no gain, the optimum at or past the
    // AAT saturation point (the naive set: larger trees pay off until acceptance saturates), or an
    // interior optimum set by the compute roof before it.
    const std::string sd_case = r.best.x == 1 ? "sd_never_helps"
                                : r.best.x >= r.naive.x ? "optimum_at_saturation"
                                                        : "interior_optimum";
    std::vector<Cell> result = {num(hw.peak_flops() / 1e12), num(bw / 1e9), num(hw.peak_flops() / bw),
                                integer(aat.context), num(r.ar.p_eff()), integer(r.best.x), num(r.best.p_eff()),
                                num(r.speedup(), 3), num(r.best.aat), num(r.best.t_verify_s),
                                num(r.best.t_draft_s), r.ridge_x ? num(*r.ridge_x, 3) : text(""),
                                text(r.regime ? roofline::to_string(*r.regime) : std::string()), sd_case,
                                text(sim::fit_status(memory))};
    cells.insert(cells.end(), result.begin(), result.end());
    return csv_row(columns, std::move(cells));
  };

  const std::size_t n = indices.size();
  unsigned threads = threads_wanted ? threads_wanted : std::max(1u, std::thread::hardware_concurrency());
  threads = unsigned(std::max<std::size_t>(1, std::min<std::size_t>(threads, n)));
  std::vector<std::string> lines(n);

  // The SystemC engines keep one kernel per process, so their simulations take turns across
  // threads: on them the workers are forked processes (experiments/sweep/process_pool.hpp)
  // whenever this process may fork; a point's row is the same bytes either way.
  if (sweep_uses_processes(engine_name, threads)) {
    // Points of one hardware configuration go to a worker together (up to a quarter of a
    // worker's share, so that the workers still balance), to share that worker's engine.
    const std::size_t most = std::max<std::size_t>(1, n / (4 * std::size_t(threads)));
    std::vector<std::vector<std::size_t>> groups;  // positions in `indices`
    std::map<std::string, std::size_t> open_group;  // hardware key -> its group being filled
    for (std::size_t pos = 0; pos < n; ++pos) {
      const std::string key = hardware_key(spec.point(indices[pos]));
      auto it = open_group.find(key);
      if (it == open_group.end() || groups[it->second].size() >= most) {
        groups.emplace_back();
        it = open_group.insert_or_assign(key, groups.size() - 1).first;
      }
      groups[it->second].push_back(pos);
    }
    // A group's rows travel as one result, each ended by '\0' (a CSV row holds none); the rows
    // are passed on in the order of `indices` as soon as they and every earlier one are in.
    std::vector<char> have(n, 0);
    std::size_t passed_on = 0;
    run_in_worker_processes(
        groups.size(), threads,
        [&](std::size_t g) {
          std::string rows;
          for (std::size_t pos : groups[g]) {
            rows += compute(indices[pos]);
            rows.push_back('\0');
          }
          return rows;
        },
        [&](std::size_t g, const std::string& rows) {
          std::size_t from = 0;
          for (std::size_t pos : groups[g]) {
            const std::size_t end = rows.find('\0', from);
            if (end == std::string::npos) throw std::runtime_error("sweep worker returned fewer rows than points");
            lines[pos] = rows.substr(from, end - from);
            have[pos] = 1;
            from = end + 1;
          }
          for (; passed_on < n && have[passed_on]; ++passed_on)
            if (on_row) on_row(passed_on, lines[passed_on]);
        });
    return lines;
  }

  // Otherwise threads. Every engine is safe to use from several threads: each SystemC
  // simulation runs in its own context (sim/sc_session.hpp); their kernels take turns while
  // graph building, memoisation and the optimiser run in parallel.
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::size_t, std::string> finished;  // reorder buffer, by position in `indices`
  std::exception_ptr error;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  auto worker = [&] {
    while (!stop) {
      const std::size_t pos = next++;
      if (pos >= n) return;
      try {
        std::string line = compute(indices[pos]);
        std::lock_guard<std::mutex> lock(mu);
        finished.emplace(pos, std::move(line));
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        stop = true;
      }
      cv.notify_one();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads && n > 0; ++t) pool.emplace_back(worker);
  for (std::size_t to_write = 0; to_write < n; ++to_write) {
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return error || finished.count(to_write); });
      if (error) break;
      lines[to_write] = std::move(finished.at(to_write));
      finished.erase(to_write);
    }
    if (on_row) {
      try {
        on_row(to_write, lines[to_write]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        break;
      }
    }
  }
  stop = true;
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  return lines;
}

SweepRunStats run_sweep(const SweepSpec& spec, const models::ConfigRegistry& reg,
                        const SweepRunOptions& o, Table* rows_out) {
  const auto t0 = std::chrono::steady_clock::now();
  SweepRunStats stats;
  const auto indices = shard_indices(spec.size(), o.shard_index, o.shard_count);
  stats.total = indices.size();
  const std::string header = sweep_header(spec);
  // Every point's inputs before anything is opened or printed: a spec with a bad point is one
  // error, with no journal left behind and no header on stdout.
  const auto prepared = prepare_sweep(spec, reg, o.engine);

  // One run per output file at a time (a second one is refused, never interleaved). Rows go
  // to the journal OUT.partial as they finish, each with its checksum, and at the end OUT is
  // written whole from them (atomically, without the checksums) and the journal removed, so OUT
  // is only ever absent, an earlier complete result, or this run's complete result. Resume:
  // keep the intact complete rows of an earlier run of the same spec (and shard), from the
  // journal a killed run left, else from OUT itself (a finished run, or a cut-short file).
  // Through a symbolic link, the lock, the journal and the write are the target's.
  std::optional<OutputLock> lock;
  const std::string journal = o.out_path.empty() ? "" : sweep_journal_path(o.out_path);
  std::string resume_from = o.out_path;
  if (!o.out_path.empty()) {
    if (std::filesystem::is_directory(o.out_path))
      throw models::InputError(fmt::format("{}: is a folder; --out takes the sweep's CSV file path", o.out_path));
    // A FIFO or another special file is refused before it is read to resume (reading a FIFO
    // with no writer would block for ever).
    if (sim::check_output_target(o.out_path))
      throw models::InputError(fmt::format("{}: is a device; --out takes the sweep's CSV file path (it is read back "
                                           "to resume)", o.out_path));
    lock.emplace(OutputLock::for_file(o.out_path), o.out_path);
    if (sweep_journal_exists(o.out_path)) resume_from = journal;
  }
  // What the rows depend on beyond their point cells: it leads the journal and OUT, and a file
  // computed under other facts is refused instead of resumed.
  const std::string fingerprint = sweep_fingerprint(spec, reg, o.shard_index, o.shard_count);
  std::size_t keep = 0;
  std::vector<std::string> lines =
      read_resume_rows(spec, resume_from, indices, &keep,
                       resume_from == journal ? ResumeFile::journal : ResumeFile::output, &stats.dropped,
                       o.out_path.empty() ? "" : fingerprint);
  const std::size_t first_pending = lines.size();
  std::ofstream file;
  if (!o.out_path.empty()) {
    if (resume_from != journal || keep == 0) {
      // A fresh journal, holding the rows kept from OUT (if any).
      std::ofstream init(journal, std::ios::binary | std::ios::trunc);
      if (!init)
        throw models::InputError(fmt::format("{}: cannot write the sweep output: {}", journal, std::strerror(errno)));
      init << fingerprint << sweep_journal_header(spec) << '\n';
      for (const auto& l : lines) init << sweep_journal_row(l) << '\n';
      init.flush();
      if (!init)
        throw models::InputError(fmt::format("{}: cannot write the sweep output: {}", journal, std::strerror(errno)));
    } else if (keep < std::filesystem::file_size(journal)) {
      std::filesystem::resize_file(journal, keep);  // a row cut short by the kill
    }
    file.open(journal, std::ios::binary | std::ios::app);
    if (!file) throw models::InputError(fmt::format("{}: cannot append to the sweep output", journal));
  }
  stats.reused = first_pending;
  // The stream's head (and the resumed rows) go out with the first computed row, or at the end:
  // a point that fails before any row (an input only costing finds out of scale) prints nothing.
  bool stream_started = false;
  auto start_stream = [&] {
    if (!o.stream || stream_started) return;
    stream_started = true;
    *o.stream << fingerprint << header << '\n';
    for (std::size_t i = 0; i < first_pending; ++i) *o.stream << lines[i] << '\n';
    o.stream->flush();
  };
  if (first_pending > 0) start_stream();  // resumed rows are results already: shown at once

  const std::vector<std::size_t> pending(indices.begin() + std::ptrdiff_t(first_pending), indices.end());
  unsigned threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  stats.threads = unsigned(std::max<std::size_t>(1, std::min<std::size_t>(threads, pending.size())));
  stats.worker_processes = sweep_uses_processes(o.engine.empty() ? spec.engine : o.engine, stats.threads);
  ProgressBar bar(o.progress, stats.total, first_pending);
  bar.update(first_pending);
  // Rows are appended and flushed in index order as they finish, so an interrupted run leaves
  // a resumable prefix.
  int journal_errno = 0;  // the first failed append's reason (errno is long overwritten at close)
  auto rows = compute_sweep_rows(spec, reg, pending, stats.threads, o.engine,
                                 [&](std::size_t pos, const std::string& line) {
                                   if (file.is_open()) {
                                     file << sweep_journal_row(line) << '\n';
                                     file.flush();
                                     if (!file && journal_errno == 0) journal_errno = errno ? errno : EIO;
                                   }
                                   if (o.stream) {
                                     start_stream();
                                     *o.stream << line << '\n';
                                     o.stream->flush();
                                   }
                                   ++stats.computed;
                                   bar.update(first_pending + pos + 1);
                                 },
                                 prepared);
  for (auto& l : rows) lines.push_back(std::move(l));
  start_stream();  // a sweep with no point left to compute still prints its head
  if (file.is_open()) {
    file.close();
    if (!file)
      throw models::InputError(fmt::format("{}: cannot write the sweep output: {} (the rows written before stay "
                                           "there: a rerun resumes from them)",
                                           journal, std::strerror(journal_errno ? journal_errno : errno)));
    // OUT's bytes are the fingerprint, the header and the rows. A kill between the write and the
    // removal leaves a complete journal: the next run resumes every row from it and writes the
    // same OUT again.
    std::string csv = fingerprint + header + "\n";
    for (const auto& l : lines) (csv += l) += '\n';
    write_file_atomic(o.out_path, csv);
    std::error_code ec;
    std::filesystem::remove(journal, ec);
    if (ec) throw models::InputError(fmt::format("{}: cannot remove the sweep journal: {}", journal, ec.message()));
  }
  if (rows_out) *rows_out = sweep_rows_table(spec, lines);
  stats.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return stats;
}

}  // namespace experiments
