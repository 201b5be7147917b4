#pragma once
// Analytic GPU engine: each op is a kernel costing max(tensor-core time with CTA-tile wave
// quantisation, memory time at achievable bandwidth) plus a launch overhead.
#include "models/latency_engine.hpp"

namespace roofline {

class GpuRooflineEngine : public models::LatencyEngine {
 public:
  explicit GpuRooflineEngine(models::HardwareSpec hw);
  std::string name() const override { return "roofline"; }
  const models::HardwareSpec& hardware() const override { return hw_; }
  models::StepCost step(const models::StepGraph& graph, bool breakdown) const override;
  models::OpCost op_cost(const models::Op& op) const;

 private:
  models::HardwareSpec hw_;
};

}  // namespace roofline
