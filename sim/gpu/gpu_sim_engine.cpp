#include "sim/gpu/gpu_sim_engine.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/config_error.hpp"
#include "models/engine_registry.hpp"
#include "roofline/gpu_step_cost.hpp"
#include "sim/gpu/gpu_device.hpp"

namespace sim {

namespace {

const models::GpuSpec& require_gpu(const models::HardwareSpec& hw) {
  if (!hw.gpu) throw models::InputError(fmt::format("{}: kind: expected gpu for the GPU sim engine", hw.source_file));
  return *hw.gpu;
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
  // The stack is fixed per engine: the graph decides the kernels and the host program.
  const std::string key = models::graph_fingerprint(graph);
  {
    std::lock_guard<std::mutex> lock(memo_mutex_);
    auto it = memo_.find(key);
    if (it != memo_.end() && (it->second->detailed || !detailed)) return it->second;
  }
  auto s = std::make_shared<SimulatedStep>();
  s->workload.streams.push_back(lower_step(model_, hw_.stack, hw_.host, graph, "step", 0, s->workload));
  s->run = run_gpu_device(model_, s->workload, mode_);
  s->detailed = detailed;
  if (!detailed) {
    // Sweeps keep only the end cycle: a step's launch records are ~10^3 entries.
    s->workload = GpuWorkload{};
    s->run.streams.clear();
    s->run.streams.shrink_to_fit();
  }
  std::lock_guard<std::mutex> lock(memo_mutex_);
  ++simulations_;
  memo_[key] = s;
  return s;
}

models::StepCost GpuSimEngine::step(const models::StepGraph& graph, bool breakdown) const {
  if (graph.layer_count < 0) throw models::InputError(fmt::format("{}: layer_count: expected >= 0", graph.label));
  const auto sim = simulate(graph, breakdown);
  return roofline::step_cost_from_run(hw_, model_.clock_hz(), graph, sim->workload, sim->run, breakdown);
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
