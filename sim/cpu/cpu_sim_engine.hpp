#pragma once
// The CPU `sim` engine: each op of the step graph is one parallel region timed by CpuCoreModel;
// ops run one after another (a framework like llama.cpp synchronises threads between ops).
#include "models/latency_engine.hpp"
#include "sim/cpu_core_model.hpp"
#include "sim/sim_engine.hpp"

namespace sim {

class CpuSimEngine : public models::LatencyEngine {
 public:
  CpuSimEngine(models::HardwareSpec hw, SimMode mode);
  std::string name() const override { return mode_ == SimMode::clocked ? "sim-clocked" : "sim"; }
  const models::HardwareSpec& hardware() const override { return hw_; }
  models::StepCost step(const models::StepGraph& graph, bool breakdown) const override;
  // One op on its own (the golden comparison times single kernels).
  models::OpCost op_cost(const models::Op& op) const;
  const CpuCoreModel& core_model() const { return model_; }

 private:
  models::HardwareSpec hw_;
  SimMode mode_;
  CpuCoreModel model_;
};

}  // namespace sim
