#pragma once
// The run of a one-stream launch plan (roofline/gpu_launch_plan.hpp) as a closed-form
// recurrence: the same host program as the SystemC host thread (sim/gpu/gpu_host_thread.hpp).
//
// The host never waits on the device: launch i enters the queue when the host has spent every
// host_cycles_before up to it (enqueue_i = start_cycle + sum of host_cycles_before[0..i]). The
// stream runs one kernel at a time: start_i = max(enqueue_i, end_{i-1}), end_i = start_i +
// launch + max(compute, memory). The step ends at the last kernel's end, or later where the host
// works on after its last launch (StreamPlan::host_after_cycles, a stack that overlaps its
// per-step work with the device). A launch-bound step (host slower than the kernels) therefore
// costs its host time, a GPU-bound one the kernels' sum, on both engines by the same rule.
//
// Both engines run one stream through it and differ only by each kernel's timing: the analytic
// engine takes each kernel's closed form (GpuKernelModel::time, run_closed_form); the sim engine
// times each distinct kernel alone through its simulated CTA dispatch and DRAM stream
// (sim/gpu/gpu_kernel_alone.hpp), since with one stream no two kernels ever overlap. Several
// streams share SMs and DRAM, which no recurrence holds: they run in the SystemC model.
#include <vector>

#include "roofline/gpu_launch_plan.hpp"

namespace roofline {

// The recurrence with kernel k of the workload taking timing[k] (launch, compute, memory and
// total cycles; only the launched kernels' entries are read). One record per launch, as the
// SystemC model writes them (KernelRecord). A workload of other than one stream is refused
// (std::invalid_argument).
DeviceRun run_one_stream(const GpuWorkload& workload, const std::vector<KernelTiming>& timing);

// The kernels (indices into workload.kernels) a one-stream workload launches, each once, in the
// order of their first launch: every decoder layer launches the same ones, so each is timed once.
// Refuses other than one stream as run_one_stream does.
std::vector<std::size_t> launched_kernels(const GpuWorkload& workload);

// run_one_stream with every kernel's closed form.
DeviceRun run_closed_form(const GpuKernelModel& model, const GpuWorkload& workload);

}  // namespace roofline
