#pragma once
// What a GPU runs for a step: per CUDA stream, the kernels its host thread launches in order,
// with the host time spent before each launch (the software stack's per-step, per-layer and
// per-kernel dispatch costs, or one graph launch for a captured CUDA graph), and what a run
// records for every launch. Both GPU engines take the same plan: the analytic engine runs it
// through the closed-form host/device recurrence below (roofline/gpu_stream_schedule.hpp), the
// SystemC engine (sim/gpu/gpu_device.hpp) simulates CTA dispatch and DRAM under it. So the two
// charge the same stack by the same rules and differ only by what cycle-level simulation adds.
// It lives in roofline/ because sim links roofline, not the other way round;
// sim/gpu/gpu_launch_plan.hpp re-exports it under namespace sim.
#include <cstdint>
#include <string>
#include <vector>

#include "models/host_spec.hpp"
#include "models/operator_graph.hpp"
#include "models/software_stack.hpp"
#include "roofline/gpu_roofline.hpp"

namespace roofline {

struct KernelLaunch {
  int kernel = 0;                       // index into GpuWorkload::kernels
  int op = -1;                          // op of the step graph: layer op i, or layer_ops.size() + tail op i;
                                        // -1: one of the stack's extra kernels (no op of the graph)
  int layer = -1;                       // decoder layer, -1 for tail ops
  std::int64_t host_cycles_before = 0;  // host time spent between the previous enqueue and this one
};

struct StreamPlan {
  std::string name;
  std::int64_t start_cycle = 0;  // when the stream's host thread begins the step
  std::vector<KernelLaunch> launches;
  // Host work after the last launch, beside the device (a stack whose per-step work overlaps the
  // GPU): the step ends no earlier than the host does.
  std::int64_t host_after_cycles = 0;
};

// Distinct kernels (one entry per kernel shape; every decoder layer launches the same ones)
// and the streams that launch them.
struct GpuWorkload {
  std::vector<GpuKernel> kernels;
  std::vector<StreamPlan> streams;
};

// Cycle stamps of one launch (SM clock cycles from the start of the run).
struct KernelRecord {
  std::int64_t enqueue = 0;      // the host thread put it into the stream's launch queue
  std::int64_t start = 0;        // the stream began launching it (previous kernel done)
  std::int64_t dispatch = 0;     // device-side launch over: CTAs dispatched, DRAM stream begins
  std::int64_t compute_end = 0;  // last CTA retired
  std::int64_t memory_end = 0;   // last DRAM byte transferred
  std::int64_t end = 0;          // both done: the next kernel of the stream may start
};

struct DeviceRun {
  std::vector<std::vector<KernelRecord>> streams;  // per stream, per launch
  std::int64_t end_cycle = 0;
};

// Decoder layers in one repetition of the graph's layer ops (its attention ops): the stack's
// per-layer extra kernels run once per decoder layer.
int decoder_layers_per_unit(const models::StepGraph& graph);

// The memory-bound kernels `list` (SoftwareStack::layer_kernels or step_kernels) launches for one
// decoder layer or step of `graph`: each entry's `kernels` launches share its tensor's bytes; an
// entry for masked attention only is skipped where the graph has one token per sequence, one with
// a min_hidden_size where the model is narrower.
std::vector<GpuKernel> stack_kernels(const GpuKernelModel& model, const std::vector<models::StackKernel>& list,
                                     const models::StepGraph& graph);

// Lowers one step graph to kernels (appended to `workload.kernels`) and a stream plan whose host
// costs follow `stack`, each on `host` (HostSpec::host_us: the dispatching CPU's speed
// relative to the one the stack's figures were measured on): eager launches pay per_step_host_us once, per_layer_host_us before each
// decoder layer and kernel_launch_host_us per kernel; with cuda_graphs the captured step pays
// per_step_host_us + graph_launch_host_us once and then all its kernels are in the queue; a
// draft head's pass (graph.draft_pass) pays per_draft_pass_host_us before its first launch. A stack
// whose host work overlaps the device (host_overlaps_device) does its per-step work after the
// launches instead (StreamPlan::host_after_cycles). The
// stack's extra kernels follow each decoder layer's (layer_kernels, once per decoder layer of a
// layer unit) and the tail's (step_kernels). A graph without tail ops is a slice of a step (a
// pipeline stage before the last): it pays neither per_step_host_us nor the step_kernels, which
// the slice with the tail pays once for the step.
StreamPlan lower_step(const GpuKernelModel& model, const models::SoftwareStack& stack, const models::HostSpec& host,
                      const models::StepGraph& graph, const std::string& name, std::int64_t start_cycle,
                      GpuWorkload& workload);

}  // namespace roofline
