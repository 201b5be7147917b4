#include "sim/cpu/cpu_sim_engine.hpp"

#include <fmt/format.h>

#include "models/engine_registry.hpp"

#include "models/config_error.hpp"

namespace sim {

namespace {

const models::CpuSpec& require_cpu(const models::HardwareSpec& hw) {
  if (!hw.cpu) throw models::InputError(fmt::format("{}: kind: expected cpu for the CPU sim engine", hw.source_file));
  return *hw.cpu;
}

}  // namespace

CpuSimEngine::CpuSimEngine(models::HardwareSpec hw, SimMode mode)
    : hw_(std::move(hw)), mode_(mode), model_(require_cpu(hw_)) {}

models::OpCost CpuSimEngine::op_cost(const models::Op& op) const {
  const auto t = model_.time(op, mode_ == SimMode::clocked ? ThreadTiming::item_list_schedule
                                                           : ThreadTiming::closed_form);
  const double hz = model_.clock_hz();
  models::OpCost c;
  c.op = op.name;
  c.cycles = t.total_cycles;
  c.seconds = t.total_cycles / hz;
  c.compute_s = t.compute_cycles / hz;
  c.memory_s = t.memory_cycles / hz;
  c.stall_s = t.overhead_cycles / hz;
  if (c.seconds > 0) {
    c.compute_utilisation = op.flops / c.seconds / hw_.peak_flops();
    c.memory_utilisation = model_.dram_bytes(op) / c.seconds / hw_.peak_bandwidth_bytes();
  }
  return c;
}

models::StepCost CpuSimEngine::step(const models::StepGraph& graph, bool breakdown) const {
  models::StepCost cost;
  auto add = [&](const std::vector<models::Op>& ops, int count) {
    for (const auto& op : ops) {
      models::OpCost c = op_cost(op);
      c.count = count;
      cost.cycles += c.cycles * count;
      if (breakdown) cost.ops.push_back(c);
    }
  };
  add(graph.layer_ops, graph.layer_count);
  add(graph.tail_ops, 1);
  cost.seconds = cost.cycles / model_.clock_hz();
  return cost;
}

std::unique_ptr<models::LatencyEngine> make_cpu_sim_engine(const models::HardwareSpec& hw, SimMode mode) {
  return std::make_unique<CpuSimEngine>(hw, mode);
}

namespace {
const models::EngineRegistration event_driven("sim", models::HardwareKind::cpu, [](const models::HardwareSpec& hw) {
  return make_cpu_sim_engine(hw, SimMode::event_driven);
});
const models::EngineRegistration clocked("sim-clocked", models::HardwareKind::cpu, [](const models::HardwareSpec& hw) {
  return make_cpu_sim_engine(hw, SimMode::clocked);
});
}  // namespace

}  // namespace sim
