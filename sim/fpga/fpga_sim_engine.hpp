#pragma once
// The `sim` engine for FPGA boards: lowers each op group (all decoder layers of a step, then
// the tail) to the accelerator's instruction stream and runs it on the SystemC model. Layers
// overlap (the KV of layer i + 1 streams during layer i's projections), so the whole step is
// one program; the event-driven model simulates its layers until the state at the start of an
// op repeats the same op's a layer or more before and then skips the whole periods exactly (LayerFastForward in fpga_accelerator.hpp:
// every instruction's cycles are those of simulating all layers, tested), and inside an op it
// skips the repeating chunks of its weight stream the same way; identical groups
// (same board, ops, x, layer count) are simulated once and memoised. Without a breakdown a step
// runs as a compact program (Program::compact: one template layer, the layers implicit shifted
// copies of it, never stored), with the same cycles (tested). Every reported duration is an integer number of
// cycles. (An earlier version
// simulated a 4-layer window and extrapolated its period; the prefetch pattern is not periodic
// that early, which made T_v(x) dip by up to 0.6 %.)
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "sim/fpga/instruction_program.hpp"
#include "sim/sim_engine.hpp"

namespace sim {

class FpgaSimEngine : public models::LatencyEngine {
 public:
  FpgaSimEngine(models::HardwareSpec hw, SimMode mode);
  std::string name() const override { return mode_ == SimMode::clocked ? "sim-clocked" : "sim"; }
  const models::HardwareSpec& hardware() const override { return hw_; }
  models::StepCost step(const models::StepGraph& graph, bool breakdown) const override;
  // A larger x adds matrix passes and activation bytes and removes nothing; the programs are
  // built the same way for every x. Checked for every x = 1..128 at three contexts on V80 and
  // U250 (tests/sim: "Sim T_v is non-decreasing in x and in context"); on every shipped board
  // a step adds at least 0.3 % per token.
  bool verify_time_non_decreasing_in_x() const override { return true; }
  // Simulations actually run (memo misses), for benchmarks and tests.
  long long simulations() const {
    std::lock_guard<std::mutex> lock(memo_mutex_);
    return simulations_;
  }

 private:
  struct GroupResult {
    long long cycles = 0;  // all layer_count layers
    // The program and its schedule are kept only for --breakdown: a 13B step at x = 128 is
    // ~10^5 instructions, and keeping every memoised step's copy cost more time in page faults
    // than the simulations themselves.
    bool detailed = false;
    Program program;
    Schedule schedule;
  };
  // Shared ownership: a detailed re-simulation may replace a memo entry another caller still reads.
  std::shared_ptr<const GroupResult> simulate(const std::vector<models::Op>& ops, int tokens, int layers,
                                              bool detailed) const;

  models::HardwareSpec hw_;
  SimMode mode_;
  mutable std::mutex memo_mutex_;
  mutable std::map<std::string, std::shared_ptr<const GroupResult>> memo_;
  mutable long long simulations_ = 0;
};

}  // namespace sim
