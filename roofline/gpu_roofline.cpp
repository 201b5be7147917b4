#include "roofline/gpu_roofline.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

GpuRooflineEngine::GpuRooflineEngine(models::HardwareSpec hw) : hw_(std::move(hw)) {}

models::OpCost GpuRooflineEngine::op_cost(const models::Op& op) const {
  const models::GpuSpec& g = *hw_.gpu;
  const double per_sm_flops = g.tensor_tflops_fp16 * 1e12 * g.tensor_efficiency / g.sms;
  const double bw = g.memory_bandwidth_gbs * 1e9 * g.memory_efficiency;
  models::OpCost c;
  c.op = op.name;
  double compute = 0;
  if (op.kind == models::OpKind::gemm || op.kind == models::OpKind::attention_qk ||
      op.kind == models::OpKind::attention_pv) {
    // Smallest CTA tile that covers M (64 rows minimum), full-width N tiles; waves over SMs.
    const double tile_m = op.m <= 64 ? 64 : g.cta_tile_m;
    const double tile_n = g.cta_tile_n;
    const double tiles = std::ceil(op.m / tile_m) * std::ceil(op.n / tile_n) * op.batch;
    const double waves = std::ceil(tiles / g.sms);
    compute = waves * (2.0 * tile_m * tile_n * op.k) / per_sm_flops;
  } else {
    compute = op.flops / (g.tensor_tflops_fp16 * 1e12 / 16);  // CUDA-core elementwise rate
  }
  const double bytes = op.weight_bytes + op.kv_read_bytes + op.kv_write_bytes + op.activation_bytes;
  c.compute_s = compute;
  c.memory_s = bytes / bw;
  c.stall_s = g.kernel_launch_us * 1e-6;
  c.seconds = std::max(compute, c.memory_s) + c.stall_s;
  c.compute_utilisation = op.flops / c.seconds / hw_.peak_flops();
  c.memory_utilisation = bytes / c.seconds / hw_.peak_bandwidth_bytes();
  return c;
}

models::StepCost GpuRooflineEngine::step(const models::StepGraph& graph, bool breakdown) const {
  models::StepCost cost;
  auto add = [&](const std::vector<models::Op>& ops, int count) {
    for (const auto& op : ops) {
      models::OpCost c = op_cost(op);
      c.count = count;
      cost.seconds += c.seconds * count;
      if (breakdown) cost.ops.push_back(c);
    }
  };
  add(graph.layer_ops, graph.layer_count);
  add(graph.tail_ops, 1);
  return cost;
}

}  // namespace roofline
