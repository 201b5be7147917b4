#pragma once
// The `sim` engine for FPGA boards: lowers each op group to the accelerator's instruction
// stream and runs it on the SystemC model. All decoder layers of a step have the same shape,
// so a layer is simulated once per distinct (board, ops, x) and memoised, then counted
// layer_count times; every reported duration is an integer number of cycles.
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
  };
  const GroupResult& simulate(const std::vector<models::Op>& ops, int tokens) const;

  models::HardwareSpec hw_;
  SimMode mode_;
  mutable std::mutex memo_mutex_;
  mutable std::map<std::string, std::shared_ptr<GroupResult>> memo_;
  mutable long long simulations_ = 0;
};

}  // namespace sim
