#include "roofline/cpu_roofline.hpp"

#include "models/engine_registry.hpp"

#include <algorithm>

namespace roofline {

CpuRooflineEngine::CpuRooflineEngine(models::HardwareSpec hw) : hw_(std::move(hw)) {}

models::StepCost CpuRooflineEngine::step(const models::StepGraph& graph, bool breakdown) const {
  const models::CpuSpec& c = *hw_.cpu;
  const int threads = std::min(c.threads, c.cores);
  const double flops_rate = threads * c.simd_flops_per_cycle * c.clock_ghz * 1e9 * c.compute_efficiency;
  const double bw = c.dram_bandwidth_gbs * 1e9 * c.memory_efficiency;
  models::StepCost cost;
  auto add = [&](const std::vector<models::Op>& ops, int count) {
    for (const auto& op : ops) {
      models::OpCost oc;
      oc.op = op.name;
      oc.count = count;
      oc.compute_s = op.flops / flops_rate;
      oc.memory_s = (op.weight_bytes + op.kv_read_bytes + op.kv_write_bytes) / bw;
      oc.seconds = std::max(oc.compute_s, oc.memory_s);
      oc.compute_utilisation = oc.seconds > 0 ? op.flops / oc.seconds / hw_.peak_flops() : 0;
      oc.memory_utilisation = oc.seconds > 0 ? (op.weight_bytes + op.kv_read_bytes) / oc.seconds /
                                                   hw_.peak_bandwidth_bytes() : 0;
      cost.seconds += oc.seconds * count;
      if (breakdown) cost.ops.push_back(oc);
    }
  };
  add(graph.layer_ops, graph.layer_count);
  add(graph.tail_ops, 1);
  return cost;
}

namespace {
const models::EngineRegistration registered("roofline", models::HardwareKind::cpu,
                                            [](const models::HardwareSpec& hw) {
                                              return std::make_unique<CpuRooflineEngine>(hw);
                                            });
}  // namespace

}  // namespace roofline
