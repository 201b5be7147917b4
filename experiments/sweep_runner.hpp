#pragma once
// Runs a sweep: every point of a SweepSpec is optimised (best x, speedup over AD) on worker
// threads; rows are emitted in index order through a reorder buffer, so the output bytes do
// not depend on the thread count. With an output file, rows are appended and flushed as they
// finish, and a later run with the same spec and file resumes after the last complete row.
#include <cstddef>
#include <ostream>
#include <string>

#include "experiments/sweep_spec.hpp"
#include "experiments/table.hpp"
#include "models/config_registry.hpp"
#include "models/hardware_spec.hpp"

namespace experiments {

struct SweepRunOptions {
  std::string out_path;            // CSV file to append to / resume from; empty: none
  std::ostream* stream = nullptr;  // also receives the CSV (header + rows) as rows finish
  unsigned threads = 0;            // 0: all hardware threads
  bool progress = false;           // progress bar with ETA on stderr
  std::string engine;              // empty: the spec's engine
};

struct SweepRunStats {
  std::size_t total = 0;
  std::size_t reused = 0;     // rows found complete in out_path
  std::size_t computed = 0;
  unsigned threads = 1;
  double wall_s = 0;
};

// The CSV columns of a sweep's result rows.
std::vector<std::string> sweep_columns(const SweepSpec& spec);

// Runs the sweep; `rows` (optional) receives every row (reused rows as text cells).
SweepRunStats run_sweep(const SweepSpec& spec, const models::ConfigRegistry& registry,
                        const SweepRunOptions& options, Table* rows = nullptr);

// The hardware config `path` with numeric keys replaced (dotted paths, e.g.
// memory.bandwidth_gbs): the overridden YAML goes through models::load_hardware, so every
// check of the config still applies. `context` names the caller in error messages.
models::HardwareSpec load_hardware_with_overrides(
    const std::string& path, const std::vector<std::pair<std::string, std::string>>& overrides,
    const std::string& context);

}  // namespace experiments
