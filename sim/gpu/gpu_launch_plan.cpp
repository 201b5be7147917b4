#include "sim/gpu/gpu_launch_plan.hpp"

#include <cmath>

namespace sim {

namespace {

std::int64_t host_cycles(double microseconds, double clock_hz) {
  return std::llround(microseconds * 1e-6 * clock_hz);
}

}  // namespace

StreamPlan lower_step(const GpuKernelModel& model, const models::SoftwareStack& stack,
                      const models::StepGraph& graph, const std::string& name, std::int64_t start_cycle,
                      GpuWorkload& workload) {
  const double hz = model.clock_hz();
  const std::int64_t per_kernel = stack.cuda_graphs ? 0 : host_cycles(stack.kernel_launch_host_us, hz);
  const std::int64_t per_layer = stack.cuda_graphs ? 0 : host_cycles(stack.per_layer_host_us, hz);
  // Captured graph: the host replays the whole step with one launch after its own bookkeeping.
  std::int64_t pending_host = host_cycles(stack.per_step_host_us, hz) +
                              (stack.cuda_graphs ? host_cycles(stack.graph_launch_host_us, hz) : 0);

  // Kernels of each op, computed once: every decoder layer launches the same shapes.
  auto kernels_of = [&](const std::vector<models::Op>& ops) {
    std::vector<std::vector<int>> ids(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i)
      for (auto& k : model.kernels_for(ops[i], graph.batch)) {
        model.ctas_per_sm(k);  // refuses a kernel whose CTA fits no SM
        ids[i].push_back(int(workload.kernels.size()));
        workload.kernels.push_back(std::move(k));
      }
    return ids;
  };
  const auto layer_kernels = kernels_of(graph.layer_ops);
  const auto tail_kernels = kernels_of(graph.tail_ops);

  StreamPlan plan;
  plan.name = name;
  plan.start_cycle = start_cycle;
  auto launch = [&](int kernel, int op, int layer) {
    KernelLaunch l;
    l.kernel = kernel;
    l.op = op;
    l.layer = layer;
    l.host_cycles_before = pending_host + per_kernel;
    pending_host = 0;
    plan.launches.push_back(l);
  };
  for (int layer = 0; layer < graph.layer_count; ++layer) {
    pending_host += per_layer;
    for (std::size_t i = 0; i < layer_kernels.size(); ++i)
      for (int k : layer_kernels[i]) launch(k, int(i), layer);
  }
  for (std::size_t i = 0; i < tail_kernels.size(); ++i)
    for (int k : tail_kernels[i]) launch(k, int(graph.layer_ops.size() + i), -1);
  return plan;
}

}  // namespace sim
