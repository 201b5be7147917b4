#pragma once
// The GPU `sim` engines (`--engine sim`: event-driven, `--engine sim-clocked`: clocked
// reference): a step graph becomes one stream of kernel launches (gpu_launch_plan) that the
// SystemC GPU model (gpu_device) runs with its host thread, CTA dispatcher and DRAM controller.
// All layers of the step are simulated; identical steps are memoised.
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "models/latency_engine.hpp"
#include "sim/gpu/gpu_kernel_model.hpp"
#include "sim/gpu/gpu_launch_plan.hpp"
#include "sim/sim_engine.hpp"

namespace sim {

class GpuSimEngine : public models::LatencyEngine {
 public:
  GpuSimEngine(models::HardwareSpec hw, SimMode mode);
  std::string name() const override { return mode_ == SimMode::clocked ? "sim-clocked" : "sim"; }
  const models::HardwareSpec& hardware() const override { return hw_; }
  models::StepCost step(const models::StepGraph& graph, bool breakdown) const override;

  const GpuKernelModel& kernel_model() const { return model_; }
  // Steps actually simulated (memo misses), for tests of the memoisation.
  int simulations() const;

  // The simulated launches of one step (for breakdowns and tests).
  struct SimulatedStep {
    bool detailed = false;  // workload and the run's records kept (only when a breakdown asked for them)
    GpuWorkload workload;
    DeviceRun run;
  };
  std::shared_ptr<const SimulatedStep> simulate(const models::StepGraph& graph, bool detailed) const;

 private:
  models::HardwareSpec hw_;
  SimMode mode_;
  GpuKernelModel model_;
  mutable std::mutex memo_mutex_;
  mutable std::map<std::string, std::shared_ptr<const SimulatedStep>> memo_;
  mutable int simulations_ = 0;
};

}  // namespace sim
