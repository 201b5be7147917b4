#pragma once
// The `sim` engine for FPGA boards: lowers each op group to the accelerator's instruction
// stream and runs it on the SystemC model. All decoder layers of a step have the same shape,
// and the pipeline across layers (KV of layer i + 1 prefetched during layer i's projections)
// reaches a steady state within a few layers, so the engine simulates a window of
// min(layers, 4) consecutive layers once per distinct (board, ops, x), memoises it, and counts
// the remaining layers at the period of the window's third layer. Every reported duration is an
// integer number of cycles.
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "sim/instruction_program.hpp"
#include "sim/sim_engine.hpp"

namespace sim {

class FpgaSimEngine : public models::LatencyEngine {
 public:
  FpgaSimEngine(models::HardwareSpec hw, SimMode mode);
  std::string name() const override { return mode_ == SimMode::clocked ? "sim-clocked" : "sim"; }
  const models::HardwareSpec& hardware() const override { return hw_; }
  models::StepCost step(const models::StepGraph& graph, bool breakdown) const override;
  // Simulations actually run (memo misses), for benchmarks and tests.
  long long simulations() const { return simulations_; }

 private:
  struct GroupResult {
    Program program;
    Schedule schedule;
    long long cycles = 0;  // all layer_count layers (window + steady-state extrapolation)
    int period_layer = 0;  // window layer whose period is extrapolated (breakdown shows it)
  };
  const GroupResult& simulate(const std::vector<models::Op>& ops, int tokens, int layers) const;

  models::HardwareSpec hw_;
  SimMode mode_;
  mutable std::mutex memo_mutex_;
  mutable std::map<std::string, std::shared_ptr<GroupResult>> memo_;
  mutable long long simulations_ = 0;
};

}  // namespace sim
