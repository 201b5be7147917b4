#include "roofline/gpu_step_cost.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace roofline {

models::StepCost step_cost_from_run(const models::HardwareSpec& hw, double hz, const models::StepGraph& graph,
                                    const GpuWorkload& workload, const DeviceRun& run, bool breakdown) {
  models::StepCost cost;
  cost.cycles = run.end_cycle;
  cost.seconds = double(run.end_cycle) / hz;
  if (!breakdown) return cost;

  // The stack's extra kernels (op -1) get two rows of their own after the graph's ops: those of
  // a decoder layer and those of the step.
  const std::size_t layer_ops = graph.layer_ops.size();
  const std::size_t graph_ops = layer_ops + graph.tail_ops.size();
  const std::size_t ops = graph_ops + 2;
  std::vector<std::int64_t> span(ops, 0), compute(ops, 0), memory(ops, 0), stall(ops, 0);
  const int steady_layer = graph.layer_count / 2;
  const auto& launches = workload.streams[0].launches;
  const auto& records = run.streams[0];
  std::int64_t previous_end = 0;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const KernelLaunch& l = launches[i];
    const KernelRecord& r = records[i];
    if (l.layer == steady_layer || l.layer < 0) {
      const std::size_t op = l.op >= 0 ? std::size_t(l.op) : graph_ops + (l.layer >= 0 ? 0 : 1);
      const std::int64_t s = r.end - previous_end;
      const std::int64_t c = r.compute_end - r.dispatch, m = r.memory_end - r.dispatch;
      span[op] += s;
      compute[op] += c;
      memory[op] += m;
      stall[op] += s - std::max(c, m);
    }
    previous_end = r.end;
  }
  // An op's cycles and their compute / memory / stall shares, in seconds.
  auto set_times = [&](models::OpCost& c, std::size_t op) {
    c.cycles = span[op];
    c.seconds = span[op] / hz;
    c.compute_s = compute[op] / hz;
    c.memory_s = memory[op] / hz;
    c.stall_s = stall[op] / hz;
  };
  for (std::size_t op = 0; op < ops; ++op) {
    if (op >= graph_ops) {  // the stack's extra kernels: no op, no FLOPs or bytes to rate
      const bool per_layer = op == graph_ops;
      if (span[op] == 0 && (per_layer ? hw.stack.layer_kernels.empty()
                                      : hw.stack.step_kernels.empty() && hw.stack.sampled_step_kernels.empty()))
        continue;
      models::OpCost c;
      c.op = fmt::format("{}_extra_kernels ({})", per_layer ? "layer" : "step", hw.stack.name);
      c.count = per_layer ? graph.layer_count : 1;
      set_times(c, op);
      cost.ops.push_back(c);
      continue;
    }
    const bool is_layer = op < layer_ops;
    const models::Op& o = is_layer ? graph.layer_ops[op] : graph.tail_ops[op - layer_ops];
    models::OpCost c;
    c.op = o.name;
    c.count = is_layer ? graph.layer_count : 1;
    set_times(c, op);
    if (c.seconds > 0) {
      // The flash-attention kernels of a QK op also do its softmax and PV.
      const bool attention = o.kind == models::OpKind::attention_qk;
      const double flops = attention ? 2.0 * o.flops : o.flops;
      const double bytes = attention ? 2.0 * o.kv_read_bytes : o.weight_bytes + o.kv_read_bytes + o.activation_bytes;
      c.compute_utilisation = flops / c.seconds / hw.peak_flops();
      c.memory_utilisation = bytes / c.seconds / hw.peak_bandwidth_bytes();
    }
    cost.ops.push_back(c);
  }
  return cost;
}

}  // namespace roofline
