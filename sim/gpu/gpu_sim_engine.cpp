#include "sim/gpu_sim_engine.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"

namespace sim {

namespace {

WaveTiming wave_timing(SimMode mode) {
  return mode == SimMode::clocked ? WaveTiming::cta_list_schedule : WaveTiming::closed_form;
}

const models::GpuSpec& require_gpu(const models::HardwareSpec& hw) {
  if (!hw.gpu) throw models::InputError(fmt::format("{}: kind: expected gpu for the GPU sim engine", hw.source_file));
  return *hw.gpu;
}

}  // namespace

GpuSimEngine::GpuSimEngine(models::HardwareSpec hw, SimMode mode)
    : hw_(std::move(hw)), mode_(mode), model_(require_gpu(hw_)) {}

std::vector<TimelineEntry> GpuSimEngine::layer_timeline(const models::StepGraph& graph) const {
  auto entries = schedule_ops(model_, graph.layer_ops, graph.batch, wave_timing(mode_));
  const std::int64_t end = entries.empty() ? 0 : entries.back().end_cycle;
  auto tail = schedule_ops(model_, graph.tail_ops, graph.batch, wave_timing(mode_), end);
  entries.insert(entries.end(), tail.begin(), tail.end());
  return entries;
}

models::StepCost GpuSimEngine::step(const models::StepGraph& graph, bool breakdown) const {
  const double hz = model_.clock_hz();
  const double peak_flops = hw_.peak_flops(), peak_bw = hw_.peak_bandwidth_bytes();
  models::StepCost cost;
  auto add = [&](const std::vector<models::Op>& ops, int count) {
    for (const auto& op : ops) {
      const auto entries = schedule_ops(model_, {op}, graph.batch, wave_timing(mode_));
      models::OpCost c;
      c.op = op.name;
      c.count = count;
      std::int64_t compute = 0, memory = 0, launch = 0;
      for (const auto& e : entries) {
        c.cycles += e.timing.total_cycles;
        compute += e.timing.compute_cycles;
        memory += e.timing.memory_cycles;
        launch += e.timing.launch_cycles;
      }
      c.seconds = c.cycles / hz;
      c.compute_s = compute / hz;
      c.memory_s = memory / hz;
      c.stall_s = launch / hz;
      if (op.kind == models::OpKind::attention_qk) {
        // The flash-attention kernels also do the softmax and PV of this block.
        const double flops = 2.0 * op.flops;
        c.compute_utilisation = c.seconds > 0 ? flops / c.seconds / peak_flops : 0;
        c.memory_utilisation = c.seconds > 0 ? 2.0 * op.kv_read_bytes / c.seconds / peak_bw : 0;
      } else if (c.seconds > 0) {
        c.compute_utilisation = op.flops / c.seconds / peak_flops;
        c.memory_utilisation = (op.weight_bytes + op.kv_read_bytes + op.activation_bytes) / c.seconds / peak_bw;
      }
      cost.cycles += c.cycles * count;
      if (breakdown) cost.ops.push_back(c);
    }
  };
  add(graph.layer_ops, graph.layer_count);
  add(graph.tail_ops, 1);
  cost.seconds = cost.cycles / hz;
  return cost;
}

std::unique_ptr<models::LatencyEngine> make_gpu_sim_engine(const models::HardwareSpec& hw, SimMode mode) {
  return std::make_unique<GpuSimEngine>(hw, mode);
}

}  // namespace sim
