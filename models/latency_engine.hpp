#pragma once
// The interface both latency engines implement (roofline: analytic; sim: SystemC). An engine is
// bound to one hardware description and costs operator graphs; t_verify / t_draft below turn a
// workload into graphs, so both engines see exactly the same ops.
#include <memory>
#include <string>
#include <vector>

#include "models/algorithm_spec.hpp"
#include "models/hardware_spec.hpp"
#include "models/model_spec.hpp"
#include "models/operator_graph.hpp"

namespace models {

struct OpCost {
  std::string op;            // op name; "(layer)" rows aggregate a whole layer
  int count = 1;             // how many times it occurs in the step (layers)
  double seconds = 0;        // per occurrence
  double compute_s = 0;      // time the compute units were busy
  double memory_s = 0;       // time the memory system was busy
  double stall_s = 0;        // time neither hid the other (fill/drain, dependencies)
  double compute_utilisation = 0;  // achieved / peak FLOP/s while the op ran
  double memory_utilisation = 0;   // achieved / peak bandwidth while the op ran
  long long cycles = 0;      // sim engines: integer cycles per occurrence
};

struct StepCost {
  double seconds = 0;
  long long cycles = 0;      // sim engines: integer cycles of the whole step
  std::vector<OpCost> ops;   // filled when a breakdown is requested
};

class LatencyEngine {
 public:
  virtual ~LatencyEngine() = default;
  virtual std::string name() const = 0;
  virtual const HardwareSpec& hardware() const = 0;
  virtual StepCost step(const StepGraph& graph, bool breakdown = false) const = 0;
  // Whether T_v(x) never falls as x grows at a fixed context and batch (more tokens are never
  // cheaper). An engine that says so lets the optimiser skip the x that provably cannot beat
  // the best one found (search::OptimizeOptions::full_curve); an engine whose choices per shape
  // can make a larger step cheaper must keep the default.
  virtual bool verify_time_non_decreasing_in_x() const { return false; }
};

struct Workload {
  ModelSpec target;
  std::shared_ptr<const AlgorithmSpec> algorithm;  // may be null: no draft
  int batch = 1;
  // The run samples its tokens (temperature, top-k, top-p) instead of taking the argmax: its
  // verify steps carry the stack's sampler kernels (StepGraph::sampled).
  bool sampled = false;
};

// T_v(x, L): one target forward pass over x tokens (tree mask when x > 1).
double t_verify(const LatencyEngine& engine, const Workload& w, int x, long long context);
StepGraph verify_graph(const LatencyEngine& engine, const Workload& w, int x, long long context);
// T_d: all draft passes of the tree (or chain) used at verification length x.
double t_draft(const LatencyEngine& engine, const Workload& w, int x, long long context);
// T_d for explicit per-pass widths (trees chosen by the tree search).
double t_draft_passes(const LatencyEngine& engine, const Workload& w,
                      const std::vector<int>& pass_widths, long long context);

}  // namespace models
