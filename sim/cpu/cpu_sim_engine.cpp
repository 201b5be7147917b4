#include "sim/cpu/cpu_sim_engine.hpp"

#include <fmt/format.h>

#include <cmath>

#include <algorithm>

#include "models/cycle_range.hpp"
#include "models/config_error.hpp"
#include "models/engine_registry.hpp"
#include "sim/cpu/cpu_device.hpp"

namespace sim {

namespace {

const models::CpuSpec& require_cpu(const models::HardwareSpec& hw) {
  if (!hw.cpu) throw models::InputError(fmt::format("{}: kind: expected cpu for the CPU sim engine", hw.source_file));
  return *hw.cpu;
}

}  // namespace

CpuSimEngine::CpuSimEngine(models::HardwareSpec hw, SimMode mode)
    : hw_(std::move(hw)), mode_(mode), rates_(roofline::cpu_rates(require_cpu(hw_))) {}

std::vector<long long> CpuSimEngine::cycles_of(const std::vector<roofline::CpuKernel>& kernels) const {
  std::vector<roofline::CpuKernel> missing;
  {
    std::lock_guard<std::mutex> lock(memo_mutex_);
    for (const auto& k : kernels)
      if (!memo_.count(k) && std::find_if(missing.begin(), missing.end(), [&](const auto& m) {
                               return !(m < k) && !(k < m);
                             }) == missing.end())
        missing.push_back(k);
  }
  // Simulated outside the memo lock (the SystemC session serialises itself).
  const std::vector<long long> simulated = simulate_cpu_regions(missing, mode_);
  std::lock_guard<std::mutex> lock(memo_mutex_);
  for (std::size_t i = 0; i < missing.size(); ++i) memo_[missing[i]] = simulated[i];
  std::vector<long long> out;
  out.reserve(kernels.size());
  for (const auto& k : kernels) out.push_back(memo_.at(k));
  return out;
}

models::OpCost CpuSimEngine::cost_of(const models::Op& op, const roofline::CpuKernel& k, long long cycles) const {
  const roofline::CpuRegionTiming bound = roofline::cpu_closed_form(k);
  const double hz = rates_.clock_hz;
  models::OpCost c;
  c.op = op.name;
  c.cycles = cycles;
  c.seconds = cycles / hz;
  c.compute_s = bound.compute_cycles / hz;  // the busiest core's SIMD time
  c.memory_s = bound.memory_cycles / hz;    // the DRAM controller's busy time
  // Fork/join plus whatever neither hid: cores left streaming alone at a fair share below what
  // they could have used earlier (ragged deals of items). A packing GEMM's stream and compute
  // follow each other by design: both count as busy, not stalled.
  const long long busy = k.stream_then_compute ? bound.compute_cycles + bound.memory_cycles
                                               : std::max(bound.compute_cycles, bound.memory_cycles);
  c.stall_s = (cycles - busy) / hz;
  if (c.seconds > 0) {
    c.compute_utilisation = op.flops / c.seconds / hw_.peak_flops();
    c.memory_utilisation = k.dram_bytes() / c.seconds / hw_.peak_bandwidth_bytes();
  }
  return c;
}

models::OpCost CpuSimEngine::op_cost(const models::Op& op) const {
  const roofline::CpuKernel k = roofline::cpu_kernel(op, rates_, roofline::CpuResidency{});
  return cost_of(op, k, cycles_of({k}).front());
}

models::StepCost CpuSimEngine::step(const models::StepGraph& graph, bool breakdown) const {
  const roofline::CpuResidency residency = roofline::cpu_residency(graph, rates_);
  std::vector<roofline::CpuKernel> kernels;
  models::for_each_op_group(graph, [&](const std::vector<models::Op>& ops, int, bool) {
    for (const auto& op : ops) kernels.push_back(roofline::cpu_kernel(op, rates_, residency));
  });
  const std::vector<long long> cycles = cycles_of(kernels);
  models::StepCost cost;
  std::size_t i = 0;
  models::for_each_op_group(graph, [&](const std::vector<models::Op>& ops, int count, bool) {
    for (const auto& op : ops) {
      cost.cycles += cycles[i] * count;
      if (breakdown) {
        models::OpCost c = cost_of(op, kernels[i], cycles[i]);
        c.count = count;
        cost.ops.push_back(c);
      }
      ++i;
    }
  });
  // The software stack's host work, in series with the regions (as in the roofline engine).
  const std::int64_t host_cycles = roofline::cpu_stack_host_cycles(hw_.stack, hw_.host, graph, rates_.clock_hz);
  cost.cycles += host_cycles;
  if (breakdown && host_cycles > 0) cost.ops.push_back(roofline::cpu_host_row(hw_.stack, host_cycles, rates_.clock_hz));
  cost.seconds = cost.cycles / rates_.clock_hz;
  return cost;
}

std::unique_ptr<models::LatencyEngine> make_cpu_sim_engine(const models::HardwareSpec& hw, SimMode mode) {
  return std::make_unique<CpuSimEngine>(hw, mode);
}

namespace {
const models::EngineRegistration cpu_event_driven("sim", "cpu", [](const models::HardwareSpec& hw) {
  return make_cpu_sim_engine(hw, SimMode::event_driven);
});
const models::EngineRegistration cpu_clocked("sim-clocked", "cpu", [](const models::HardwareSpec& hw) {
  return make_cpu_sim_engine(hw, SimMode::clocked);
});
}  // namespace

}  // namespace sim
