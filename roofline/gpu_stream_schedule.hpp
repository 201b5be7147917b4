#pragma once
// The analytic engine's run of a launch plan (roofline/gpu_launch_plan.hpp): the same host
// program as the SystemC host thread (sim/gpu/gpu_host_thread.hpp), with each kernel taking its
// closed-form time (GpuKernelModel::time) instead of a simulated CTA dispatch and DRAM stream.
//
// The host never waits on the device: launch i enters the queue when the host has spent every
// host_cycles_before up to it (enqueue_i = start_cycle + sum of host_cycles_before[0..i]). The
// stream runs one kernel at a time: start_i = max(enqueue_i, end_{i-1}), end_i = start_i +
// launch + max(compute, memory). The step ends at the last kernel's end, or later where the host
// works on after its last launch (StreamPlan::host_after_cycles, a stack that overlaps its
// per-step work with the device). A launch-bound step (host slower than the kernels) therefore
// costs its host time, a GPU-bound one the kernels' sum, on both engines by the same rule.
#include "roofline/gpu_launch_plan.hpp"

namespace roofline {

// One record per launch, as the SystemC model writes them (KernelRecord). The closed form has no
// model of two streams sharing SMs and DRAM, so a workload of other than one stream is refused
// (std::invalid_argument); co-located streams go to the SystemC model (sim/gpu/gpu_streams.hpp).
DeviceRun run_closed_form(const GpuKernelModel& model, const GpuWorkload& workload);

}  // namespace roofline
