#include "roofline/gpu_launch_plan.hpp"

#include <cmath>

#include "models/cycle_range.hpp"

namespace roofline {

namespace {

std::int64_t cycles_of_host_us(double microseconds, double clock_hz) {
  return models::checked_cycles(microseconds * 1e-6 * clock_hz, "GPU model: the stack's host time");
}

// Activation elements of `tensor` in `graph` (0 where the graph does not know its widths).
double tensor_elements(models::StackTensor tensor, const models::StepGraph& graph) {
  const auto& w = graph.widths;
  const double rows = double(graph.batch) * graph.tokens;
  switch (tensor) {
    case models::StackTensor::hidden: return rows * double(w.hidden);
    case models::StackTensor::q: return rows * double(w.q);
    case models::StackTensor::kv: return rows * double(w.kv);
    case models::StackTensor::ffn: return rows * double(w.ffn);
    case models::StackTensor::vocab: return rows * double(w.vocab);
    case models::StackTensor::attention_mask:
      return w.kv_heads > 0 ? double(graph.tokens) * double(w.heads / w.kv_heads) * double(graph.context + graph.tokens)
                            : 0.0;
    case models::StackTensor::kv_cache: return double(graph.batch) * double(graph.context + graph.tokens) * double(w.kv);
    case models::StackTensor::kv_cache_heads:
      return double(graph.batch) * double(graph.context + graph.tokens) * double(w.q);
    case models::StackTensor::attention_scores:
      return double(graph.batch) * double(w.heads) * double(graph.tokens) * double(graph.context + graph.tokens);
  }
  return 0.0;
}

}  // namespace

int decoder_layers_per_unit(const models::StepGraph& graph) {
  int layers = 0;
  for (const auto& op : graph.layer_ops) layers += op.kind == models::OpKind::attention_qk ? 1 : 0;
  return layers;
}

std::vector<GpuKernel> stack_kernels(const GpuKernelModel& model, const std::vector<models::StackKernel>& list,
                                     const models::StepGraph& graph) {
  std::vector<GpuKernel> out;
  for (const auto& k : list) {
    if (k.masked_attention_only && graph.tokens < 2) continue;
    if (graph.widths.hidden < k.min_hidden_size) continue;
    if (k.grouped_kv_only && graph.widths.kv_heads >= graph.widths.heads) continue;
    const double elements = tensor_elements(k.tensor, graph);
    const double bytes = k.passes * elements * graph.widths.element_bytes / k.kernels;
    for (int i = 0; i < k.kernels; ++i) out.push_back(model.memory_kernel(k.name, bytes, elements / k.kernels));
  }
  return out;
}

StreamPlan lower_step(const GpuKernelModel& model, const models::SoftwareStack& stack, const models::HostSpec& host,
                      const models::StepGraph& graph, const std::string& name, std::int64_t start_cycle,
                      GpuWorkload& workload) {
  const double hz = model.clock_hz();
  // Every host figure of the stack, as this host runs it.
  auto host_cycles = [&](double measured_us, double clock_hz) { return cycles_of_host_us(host.host_us(measured_us), clock_hz); };
  const std::int64_t per_kernel = stack.cuda_graphs ? 0 : host_cycles(stack.kernel_launch_host_us, hz);
  const std::int64_t per_layer =
      stack.cuda_graphs ? 0 : host_cycles(stack.per_layer_host_us * graph.layer_host_share, hz);
  // Captured graph: the host replays the whole step with one launch after its own bookkeeping,
  // or, where the stack overlaps its bookkeeping with the device, before it.
  // The step's own host work and kernels (generate's loop, the logits' argmax, the bookkeeping)
  // go with the slice of the step that has the model's tail, once per step.
  const bool carries_step_work = graph.carries_step_work();
  // A slice whose step's host work is a timeline task of its own (graph.step_host_apart) pays
  // neither that work nor the graph launch, but runs the step's kernels when it has the tail.
  const std::int64_t per_step =
      carries_step_work && !graph.step_host_apart ? host_cycles(stack.step_host_us(graph.batch), hz) : 0;
  // A drafter's pass: the proposer's own host work around it, in series before its kernels
  // (it prepares the pass's inputs from the previous pass's tokens).
  const std::int64_t per_draft_pass = graph.draft_pass ? host_cycles(stack.per_draft_pass_host_us, hz) : 0;
  std::int64_t pending_host = (stack.host_overlaps_device ? 0 : per_step) + per_draft_pass +
                              (stack.cuda_graphs && !graph.step_host_apart ? host_cycles(stack.graph_launch_host_us, hz) : 0);

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
  // The stack's own kernels (after each decoder layer of a layer unit, and after the tail): op
  // index -1, they belong to no op of the graph.
  auto extra_of = [&](const std::vector<models::StackKernel>& list, int sets) {
    std::vector<int> ids;
    const auto kernels = stack_kernels(model, list, graph);
    for (int set = 0; set < sets; ++set)
      for (const auto& k : kernels) {
        model.ctas_per_sm(k);
        ids.push_back(int(workload.kernels.size()));
        workload.kernels.push_back(k);
      }
    return ids;
  };
  const auto layer_extra = extra_of(stack.layer_kernels, decoder_layers_per_unit(graph));
  std::vector<int> step_extra = extra_of(stack.step_kernels, carries_step_work ? 1 : 0);
  // A sampled step's logits processors and sampler, after the greedy step's own (they replace
  // nothing: the list holds the kernels sampling launches beyond the greedy step's).
  if (graph.sampled) {
    const auto sampler = extra_of(stack.sampled_step_kernels, carries_step_work ? 1 : 0);
    step_extra.insert(step_extra.end(), sampler.begin(), sampler.end());
  }

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
    for (int k : layer_extra) launch(k, -1, layer);
  }
  for (std::size_t i = 0; i < tail_kernels.size(); ++i)
    for (int k : tail_kernels[i]) launch(k, int(graph.layer_ops.size() + i), -1);
  for (int k : step_extra) launch(k, -1, -1);
  if (stack.host_overlaps_device) plan.host_after_cycles = per_step;
  return plan;
}

}  // namespace roofline
