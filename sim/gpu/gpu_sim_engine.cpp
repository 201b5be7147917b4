#include "sim/gpu/gpu_sim_engine.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/config_error.hpp"
#include "models/engine_registry.hpp"
#include "sim/gpu/gpu_device.hpp"

namespace sim {

namespace {

const models::GpuSpec& require_gpu(const models::HardwareSpec& hw) {
  if (!hw.gpu) throw models::InputError(fmt::format("{}: kind: expected gpu for the GPU sim engine", hw.source_file));
  return *hw.gpu;
}

// Everything about a step that decides its kernels (the stack is fixed per engine).
std::string graph_key(const models::StepGraph& g) {
  const auto& w = g.widths;
  std::string key = fmt::format("{}x{}b{}L{}w{}:{}:{}:{}:{}:{}:{}:{}", g.layer_count, g.tokens, g.batch, g.context,
                                w.hidden, w.q, w.kv, w.ffn, w.vocab, w.heads, w.kv_heads, w.element_bytes);
  for (const auto* ops : {&g.layer_ops, &g.tail_ops}) {
    key += '#';
    for (const auto& op : *ops)
      key += fmt::format("|{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}", op.name, int(op.kind), op.m, op.n, op.k,
                         op.batch, op.flops, op.weight_bytes, op.kv_read_bytes, op.kv_write_bytes,
                         op.activation_bytes, op.heads, op.kv_heads, op.cached_keys, op.new_keys, int(op.mask));
  }
  return key;
}

}  // namespace

GpuSimEngine::GpuSimEngine(models::HardwareSpec hw, SimMode mode)
    : hw_(std::move(hw)), mode_(mode), model_(require_gpu(hw_)) {}

int GpuSimEngine::simulations() const {
  std::lock_guard<std::mutex> lock(memo_mutex_);
  return simulations_;
}

std::shared_ptr<const GpuSimEngine::SimulatedStep> GpuSimEngine::simulate(const models::StepGraph& graph,
                                                                          bool detailed) const {
  const std::string key = graph_key(graph);
  {
    std::lock_guard<std::mutex> lock(memo_mutex_);
    auto it = memo_.find(key);
    if (it != memo_.end() && (it->second->detailed || !detailed)) return it->second;
  }
  auto s = std::make_shared<SimulatedStep>();
  s->workload.streams.push_back(lower_step(model_, hw_.stack, graph, "step", 0, s->workload));
  s->run = run_gpu_device(model_, s->workload, mode_);
  s->cycles = s->run.end_cycle;
  s->detailed = detailed;
  if (!detailed) {
    // Sweeps keep only the cycle count: a step's launch records are ~10^3 entries.
    s->workload = GpuWorkload{};
    s->run = DeviceRun{};
  }
  std::lock_guard<std::mutex> lock(memo_mutex_);
  ++simulations_;
  memo_[key] = s;
  return s;
}

models::StepCost GpuSimEngine::step(const models::StepGraph& graph, bool breakdown) const {
  if (graph.layer_count < 0) throw models::InputError(fmt::format("{}: layer_count: expected >= 0", graph.label));
  const double hz = model_.clock_hz();
  const auto sim = simulate(graph, breakdown);
  models::StepCost cost;
  cost.cycles = sim->cycles;
  cost.seconds = double(sim->cycles) / hz;
  if (!breakdown) return cost;

  // Per-op rows from the simulated schedule: layer ops from a middle layer (the steady state),
  // tail ops once. An op's time is the stream time from the previous kernel's end to its last
  // kernel's end (host-bound gaps included); compute and memory are the spans during which its
  // CTAs and its DRAM stream were in flight; stall is what neither covers (launch, host idle).
  // The stack's extra kernels (op -1) get two rows of their own after the graph's ops: those of
  // a decoder layer and those of the step.
  const std::size_t layer_ops = graph.layer_ops.size();
  const std::size_t graph_ops = layer_ops + graph.tail_ops.size();
  const std::size_t ops = graph_ops + 2;
  std::vector<std::int64_t> span(ops, 0), compute(ops, 0), memory(ops, 0), stall(ops, 0);
  const int steady_layer = graph.layer_count / 2;
  const auto& launches = sim->workload.streams[0].launches;
  const auto& records = sim->run.streams[0];
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
  // An op's simulated cycles and their compute / memory / stall shares, in seconds.
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
      if (span[op] == 0 && (per_layer ? hw_.stack.layer_kernels.empty() : hw_.stack.step_kernels.empty())) continue;
      models::OpCost c;
      c.op = fmt::format("{}_extra_kernels ({})", per_layer ? "layer" : "step", hw_.stack.name);
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
      c.compute_utilisation = flops / c.seconds / hw_.peak_flops();
      c.memory_utilisation = bytes / c.seconds / hw_.peak_bandwidth_bytes();
    }
    cost.ops.push_back(c);
  }
  return cost;
}

std::unique_ptr<models::LatencyEngine> make_gpu_sim_engine(const models::HardwareSpec& hw, SimMode mode) {
  return std::make_unique<GpuSimEngine>(hw, mode);
}

namespace {
const models::EngineRegistration gpu_event_driven("sim", "gpu", [](const models::HardwareSpec& hw) {
  return make_gpu_sim_engine(hw, SimMode::event_driven);
});
const models::EngineRegistration gpu_clocked("sim-clocked", "gpu", [](const models::HardwareSpec& hw) {
  return make_gpu_sim_engine(hw, SimMode::clocked);
});
}  // namespace

}  // namespace sim
