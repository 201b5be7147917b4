#pragma once
// Analytic CPU engine: per op max(SIMD FLOP time, DRAM time) at calibrated efficiencies.
#include "models/latency_engine.hpp"

namespace roofline {

class CpuRooflineEngine : public models::LatencyEngine {
 public:
  explicit CpuRooflineEngine(models::HardwareSpec hw);
  std::string name() const override { return "roofline"; }
  const models::HardwareSpec& hardware() const override { return hw_; }
  models::StepCost step(const models::StepGraph& graph, bool breakdown) const override;

 private:
  models::HardwareSpec hw_;
};

}  // namespace roofline
