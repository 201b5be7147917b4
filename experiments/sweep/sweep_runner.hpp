#pragma once
// Runs a sweep: every point of a SweepSpec is optimised (best x, speedup over AD) on worker
// threads; rows are emitted in index order through a reorder buffer, so the output bytes do
// not depend on the thread count. With an output file, rows are appended and flushed to its
// journal (sweep_journal_path), each with a checksum, as they finish; at the end the rows are
// written to the file (atomically, without the checksums) and the journal removed, and a later
// run with the same spec and file resumes after the last complete, intact row. One run per
// output file at a time (experiments/output/output_lock.hpp).
#include <cstddef>
#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "experiments/sweep/sweep_spec.hpp"
#include "experiments/output/table.hpp"
#include "models/config_registry.hpp"
#include "models/hardware_spec.hpp"

namespace experiments {

struct SweepRunOptions {
  std::string out_path;            // CSV file to append to / resume from; empty: none
  std::ostream* stream = nullptr;  // also receives the CSV (header + rows) as rows finish
  unsigned threads = 0;            // 0: all hardware threads
  bool progress = false;           // progress bar with ETA on stderr
  std::string engine;              // empty: the spec's engine
  // Job-array shard: this run computes the points with index % shard_count == shard_index
  // (round-robin, so every shard gets a similar mix of cheap and expensive points); its file
  // holds only those rows, in index order, and `merge_sweep_shards` joins the shards.
  std::size_t shard_index = 0, shard_count = 1;
};

struct SweepRunStats {
  std::size_t total = 0;
  std::size_t reused = 0;     // rows found complete in out_path
  std::string dropped;        // non-empty: why rows found there were recomputed (one line)
  std::size_t computed = 0;
  unsigned threads = 1;          // workers
  bool worker_processes = false;  // the workers were forked processes (sweep_uses_processes)
  double wall_s = 0;
};

// Whether a sweep on `engine` with `workers` > 1 runs them as forked processes rather than
// threads: on the SystemC engines, whose simulations take turns across the threads of one
// process, whenever this process may fork (experiments/sweep/process_pool.hpp).
bool sweep_uses_processes(const std::string& engine, unsigned workers);

// The CSV columns of a sweep's result rows.
std::vector<std::string> sweep_columns(const SweepSpec& spec);

// Runs the sweep; `rows` (optional) receives every row (reused rows as text cells).
SweepRunStats run_sweep(const SweepSpec& spec, const models::ConfigRegistry& registry,
                        const SweepRunOptions& options, Table* rows = nullptr);

// The indices of the points a shard computes, ascending (every index when shard_count is 1).
std::vector<std::size_t> shard_indices(std::size_t total, std::size_t shard_index, std::size_t shard_count);

// Every point's inputs (hardware with its overrides, workloads, AAT sources, draft placements),
// loaded and checked: InputError naming the spec for the first bad point. `engine`: as
// compute_sweep_rows takes it.
struct PreparedSweep;
std::shared_ptr<const PreparedSweep> prepare_sweep(const SweepSpec& spec, const models::ConfigRegistry& registry,
                                                   const std::string& engine);

// Computes the CSV rows (no newline) of the points `indices` on `threads` worker threads;
// `on_row(pos, line)` (optional) receives each row in the order of `indices` as soon as it and
// every earlier one are done. Validates every point (configs, AAT data) before any work starts,
// through `prepared` when the caller has it (prepare_sweep of the same spec and engine).
std::vector<std::string> compute_sweep_rows(
    const SweepSpec& spec, const models::ConfigRegistry& registry, const std::vector<std::size_t>& indices,
    unsigned threads, const std::string& engine,
    const std::function<void(std::size_t, const std::string&)>& on_row = {},
    std::shared_ptr<const PreparedSweep> prepared = nullptr);

// What read_resume_rows reads: a sweep's output (the CSV itself), or its journal (the same
// rows, each ended by a checksum cell: sweep_journal_header, sweep_journal_row).
enum class ResumeFile { output, journal };

// The complete rows at the start of an existing sweep output or journal `path` (a prefix of
// `indices`' rows, checked against the spec's points), as the output holds them (no checksum);
// empty when the file does not exist. InputError when the file belongs to another spec.
// `keep_bytes` (optional) receives the length of the file's valid part (header + the rows
// returned). A row that is not intact ends the prefix, like a row cut short, so it and the rows
// after it are computed again; `dropped` (optional) then receives why, in one line. Intact: in
// a journal, its checksum matches (a changed value or a NUL byte is caught); in an output,
// which carries no checksum (its bytes are the result's), it holds no NUL byte and has every
// column. A journal without checksums (from an older specdse) is not trusted: no row is kept.
// `fingerprint` (sweep_fingerprint; empty: not checked) must lead the file: a file computed under
// other facts is refused (InputError naming the first that differs), and one without a
// fingerprint (an older specdse's) is not trusted: no row is kept.
std::vector<std::string> read_resume_rows(const SweepSpec& spec, const std::string& path,
                                          const std::vector<std::size_t>& indices,
                                          std::size_t* keep_bytes = nullptr,
                                          ResumeFile kind = ResumeFile::output, std::string* dropped = nullptr,
                                          const std::string& fingerprint = "");

// What a sweep's rows depend on beyond the point cells each row carries, as the '# key: value'
// lines (each ended by a newline) that lead its output and journal, the project's CSV convention
// (readers skip them): the spec's settings (x_max, x_search), the build, the shard, and the CRC-32
// of every input file its points name (hardware, model and algorithm configs, the acceptance
// measurements, the placements' hardware, links and systems, and the stacks folder the configs
// draw from), by their path in the config folder. A resume or a merge under other facts is
// refused, naming the first that differs, instead of keeping rows computed under them.
// The fingerprint's record of the grid: its point count and a CRC-32 of every point's axes.
std::string sweep_points_line(const SweepSpec& spec);
// The fingerprint's record of the settings every row depends on (x_max, x_search).
std::string sweep_settings_line(const SweepSpec& spec);
std::string sweep_fingerprint(const SweepSpec& spec, const models::ConfigRegistry& reg, std::size_t shard_index = 0,
                              std::size_t shard_count = 1);

// Where a sweep writing `out_path` keeps its rows while it runs (OUT.partial; beside the target
// when `out_path` is a symbolic link): written to `out_path` when the last row is done,
// resumed from when a run was killed.
std::string sweep_journal_path(const std::string& out_path);
// Whether a journal is there to resume from; InputError (one line) when its name holds anything
// but a regular file (a FIFO, a device, a folder, a link).
bool sweep_journal_exists(const std::string& out_path);

// A journal's header line and one of its rows (no newline): the output's header and row with
// one more cell, row_crc32, the CRC-32 (zlib's; 8 hex digits) of the output row's bytes.
std::string sweep_journal_header(const SweepSpec& spec);
std::string sweep_journal_row(const std::string& row);

// The CSV header line (no newline) of a sweep's output.
std::string sweep_header(const SweepSpec& spec);

// A table of text cells from CSV rows (the columns of `spec`).
Table sweep_rows_table(const SweepSpec& spec, const std::vector<std::string>& lines);

// Joins shard outputs (any order) into `out_path`, written atomically: every shard must have
// the same header and the same fingerprint lines but for its shard (a shard of another spec,
// config or build is refused), no index may repeat, and the indices must be 0..n-1 without a gap. With a
// spec, n must be the spec's size and every row's point cells must match the spec's point.
// Returns the number of rows written.
std::size_t merge_sweep_shards(const std::string& out_path, const std::vector<std::string>& shard_paths,
                               const SweepSpec* spec = nullptr);

// The hardware config `path` with numeric keys replaced (dotted paths, e.g.
// memory.bandwidth_gbs): the overridden YAML goes through models::load_hardware, so every
// check of the config still applies. `context` names the caller in error messages.
models::HardwareSpec load_hardware_with_overrides(
    const std::string& path, const std::vector<std::pair<std::string, std::string>>& overrides,
    const std::string& context);

}  // namespace experiments
