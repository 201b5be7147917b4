// The roofline of a device kind that registers no "roofline" engine of its own: each op takes
// max(FLOPs / peak FLOP/s, off-chip bytes / peak bandwidth) from the kind's peaks
// (models/device_kind.hpp), with no efficiencies, tiling or overheads. It lets a new device kind
// be timed from its YAML alone; the shipped kinds register their calibrated rooflines
// (fpga_roofline.cpp, gpu_roofline.cpp, cpu_roofline.cpp), which take precedence.
#include <algorithm>
#include <memory>

#include "models/engine_registry.hpp"
#include "models/latency_engine.hpp"

namespace roofline {
namespace {

class PeakRooflineEngine : public models::LatencyEngine {
 public:
  explicit PeakRooflineEngine(models::HardwareSpec hw)
      : hw_(std::move(hw)), flops_(hw_.peak_flops()), bandwidth_(hw_.peak_bandwidth_bytes()) {}
  std::string name() const override { return "roofline"; }
  const models::HardwareSpec& hardware() const override { return hw_; }
  // More tokens never take fewer FLOPs or bytes, so no step gets cheaper as x grows.
  bool verify_time_non_decreasing_in_x() const override { return true; }

  models::StepCost step(const models::StepGraph& graph, bool breakdown) const override {
    models::StepCost cost;
    models::for_each_op_group(graph, [&](const std::vector<models::Op>& ops, int count, bool) {
      for (const models::Op& op : ops) {
        const double bytes = op.weight_bytes + op.kv_read_bytes + op.kv_write_bytes + op.activation_load_bytes +
                             op.activation_store_bytes;
        const double compute_s = op.flops / flops_, memory_s = bytes / bandwidth_;
        const double t = std::max(compute_s, memory_s);
        cost.seconds += count * t;
        if (!breakdown) continue;
        models::OpCost c;
        c.op = op.name;
        c.count = count;
        c.seconds = t;
        c.compute_s = compute_s;
        c.memory_s = memory_s;
        c.compute_utilisation = t > 0 ? compute_s / t : 0;
        c.memory_utilisation = t > 0 ? memory_s / t : 0;
        cost.ops.push_back(c);
      }
    });
    return cost;
  }

 private:
  models::HardwareSpec hw_;
  double flops_, bandwidth_;
};

const models::EngineRegistration peak_roofline_registration("roofline", models::kAnyDeviceKind, [](const models::HardwareSpec& hw) {
  return std::make_unique<PeakRooflineEngine>(hw);
});

}  // namespace
}  // namespace roofline
