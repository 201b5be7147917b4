#pragma once
// The CPU `sim` engine: each op of the step graph is one parallel region
// (roofline/cpu_roofline.hpp decomposes it into work items, the same decomposition the analytic
// engine uses), simulated on the SystemC CPU model (sim/cpu/cpu_device.hpp); ops run one after
// another. Regions are memoised by their work (items, cycles and bytes per item, rates), so a
// sweep simulates each distinct op once per engine (xeon-16c, Llama-3.2-1B, x = 1..128 at four
// contexts: 512 steps in about 0.06 s here; the clocked reference about 7 s for one x = 64 step).
//
// Against the analytic engine (same decomposition, closed form per region): identical cycles on
// the tested grid (xeon-16c; Llama-68m FP16 and Q5_K_M, OPT-125m, Llama-3.2-1B; x = 1..32;
// L = 128, 1024, 4096), since those ops deal their items evenly; ragged deals near the ridge
// run longer in the sim (fair sharing cannot favour the cores with more left to do).
#include <map>
#include <mutex>

#include "models/latency_engine.hpp"
#include "roofline/cpu_roofline.hpp"
#include "sim/cpu/cpu_core_model.hpp"
#include "sim/sim_engine.hpp"

namespace sim {

class CpuSimEngine : public models::LatencyEngine {
 public:
  CpuSimEngine(models::HardwareSpec hw, SimMode mode);
  std::string name() const override { return mode_ == SimMode::clocked ? "sim-clocked" : "sim"; }
  const models::HardwareSpec& hardware() const override { return hw_; }
  models::StepCost step(const models::StepGraph& graph, bool breakdown) const override;
  // One op on its own with cold caches (weights and KV from DRAM): the golden comparison times
  // single kernels after flushing the caches.
  models::OpCost op_cost(const models::Op& op) const;
  const roofline::CpuRates& rates() const { return rates_; }

 private:
  // Cycles of each kernel, simulating those not memoised yet in one SystemC run.
  std::vector<long long> cycles_of(const std::vector<roofline::CpuKernel>& kernels) const;
  models::OpCost cost_of(const models::Op& op, const roofline::CpuKernel& k, long long cycles) const;

  models::HardwareSpec hw_;
  SimMode mode_;
  roofline::CpuRates rates_;
  mutable std::mutex memo_mutex_;
  mutable std::map<roofline::CpuKernel, long long> memo_;
};

}  // namespace sim
