#pragma once
// A sweep spec (configs/sweeps/*.yaml): named axes whose Cartesian product is the set of
// workloads to optimise. Axis keys are the workload fields (hardware, model, algorithm, task,
// source_table, context, batch) or any numeric key of the hardware YAML, written as its dotted
// path (memory.bandwidth_gbs, compute.mm_mode.k, clock_mhz). A scalar is a one-value axis; a
// list gives the values; {from, to, count, scale: linear|log} generates them. The draft's
// placement axes draft_hw, draft_link, system, draft_device (experiments/cli/
// draft_placement_options.hpp; absent: the draft on the target's device) become CSV columns
// when present.
//
//   name: compute_bandwidth_ratio
//   engine: roofline            # optional (the CLI's --engine overrides it)
//   x_max: 128                  # optional
//   x_search: every_x           # optional: every_x (default) or optimum: T_v only at the x that
//                               # can still be the best (same best / AD / naive columns; ridge_x
//                               # and regime left empty on engines where x were skipped)
//   plot: sweep_regimes         # optional: experiments/plots/<plot>.py, run by --plot
//   axes:
//     hardware: v80
//     model: llama-3.1-8b-instruct
//     algorithm: longspec-tree
//     context: [1024, 16384]
//     memory.bandwidth_gbs: {from: 25, to: 51200, count: 34, scale: log}
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace experiments {

struct SweepAxis {
  std::string key;
  std::vector<std::string> values;  // as written (lists) or formatted with 6 significant digits
};

// One workload of the product. Index 0 is the first value of every axis; the last axis varies
// fastest.
struct SweepPoint {
  std::size_t index = 0;
  std::string hardware, model, algorithm, task = "govreport", source_table;
  long long context = 0;
  int batch = 1;
  std::string engine;  // the latency engine that times it (the spec's, or the command's --engine)
  std::vector<std::pair<std::string, std::string>> hardware_overrides;  // key -> value text
  std::vector<std::pair<std::string, std::string>> draft_placement;     // placement axis -> value
};

struct SweepSpec {
  std::string path;
  std::string name;
  std::string engine = "roofline";  // a command's --engine replaces it (and so each row's engine cell)
  int x_max = 128;
  bool every_x = true;  // x_search: every_x; false: optimum (search::OptimizeOptions::full_curve)
  std::string plot;
  std::vector<SweepAxis> axes;  // file order

  std::size_t size() const;
  SweepPoint point(std::size_t index) const;
  // Keys of the hardware-override axes, in file order (they become CSV columns).
  std::vector<std::string> hardware_keys() const;
  // Keys of the draft-placement axes, in file order (CSV columns after the hardware keys).
  std::vector<std::string> draft_placement_keys() const;
};

// The Cartesian product of `axes`: how many points, and point `index`'s value on each axis
// (index 0 is every axis's first value; the last axis varies fastest). Optimiser and scenario
// sweeps number their points alike.
std::size_t point_count(const std::vector<SweepAxis>& axes);
std::vector<std::string> axis_values_at(const std::vector<SweepAxis>& axes, std::size_t index);

// Workload fields an axis may name; every other key is a hardware YAML key.
bool is_workload_field(const std::string& key);
const std::vector<std::string>& workload_fields();
// The workload field an undotted axis key that is none was most likely meant to be
// ("contexts" -> "context", "batchsize" -> "batch"); "" when it reads as a hardware key.
std::string misspelt_workload_axis(const std::string& key);
// draft_hw, draft_link, system, draft_device.
bool is_draft_placement_field(const std::string& key);

// Parses and validates a spec; errors are models::InputError "FILE: KEY: expected X, got Y".
SweepSpec load_sweep_spec(const std::string& path);

}  // namespace experiments
