#pragma once
// The GPU `sim` engine: costs a step graph by scheduling its kernels (gpu_kernel_model) on one
// stream (gpu_timeline). A decoder layer is scheduled once and repeated layer_count times.
#include "models/latency_engine.hpp"
#include "sim/gpu_kernel_model.hpp"
#include "sim/gpu_timeline.hpp"
#include "sim/sim_engine.hpp"

namespace sim {

class GpuSimEngine : public models::LatencyEngine {
 public:
  GpuSimEngine(models::HardwareSpec hw, SimMode mode);
  std::string name() const override { return mode_ == SimMode::clocked ? "sim-clocked" : "sim"; }
  const models::HardwareSpec& hardware() const override { return hw_; }
  models::StepCost step(const models::StepGraph& graph, bool breakdown) const override;

  const GpuKernelModel& kernel_model() const { return model_; }
  // Kernel timeline of one decoder layer followed by the tail ops.
  std::vector<TimelineEntry> layer_timeline(const models::StepGraph& graph) const;

 private:
  models::HardwareSpec hw_;
  SimMode mode_;
  GpuKernelModel model_;
};

}  // namespace sim
