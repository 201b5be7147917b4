#pragma once
// Scenario sweeps: a sweep spec with `scenario: NAME` runs that registered scenario at every
// point of its axes' Cartesian product. Axis keys are the scenario's common inputs under the
// CLI's names (hw, model, algorithm, context, batch, task, source-table, engine; `hardware` and
// `source_table` as in optimiser sweeps) and its declared parameters under their keys, so a
// parameter is swept under the name it has on the command line and in Python:
//
//   name: chain_sd_windows
//   scenario: chain-sd
//   axes:
//     model: llama-2-7b
//     context: [256, 2048]
//     system: duodecoding-a800-xeon
//     draft: llama-68m
//     alpha: [0.6, 0.8]
//
// The output has one row per scenario result row: the point's axis values, then the scenario's
// columns. Points run on worker threads and are written in index order, so the bytes do not
// depend on the thread count.
#include <optional>
#include <string>
#include <vector>

#include "experiments/output/table.hpp"
#include "experiments/sweep/sweep_spec.hpp"
#include "models/config_registry.hpp"

namespace experiments {

struct ScenarioSweepSpec {
  std::string path, name, scenario;
  std::vector<SweepAxis> axes;  // file order; the last varies fastest
  std::size_t size() const;
};

// The spec at `path` when it names a scenario (`scenario:`), else nullopt (an optimiser sweep);
// InputError "FILE: KEY: expected X, got Y" for a bad scenario spec, with the closest key.
std::optional<ScenarioSweepSpec> load_scenario_sweep_spec(const std::string& path);

struct ScenarioSweepOptions {
  unsigned threads = 0;     // 0: all hardware threads
  std::string engine;       // non-empty: --engine for every point without an engine axis
  bool progress = false;    // progress on stderr
};

// Runs every point; the rows in index order.
Table run_scenario_sweep(const ScenarioSweepSpec& spec, const models::ConfigRegistry& registry,
                         const ScenarioSweepOptions& options);

}  // namespace experiments
