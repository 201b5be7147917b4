#include "roofline/gpu_stream_schedule.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/cycle_range.hpp"

namespace roofline {

namespace {

const StreamPlan& the_one_stream(const GpuWorkload& workload) {
  if (workload.streams.size() != 1)
    throw std::invalid_argument("GPU model: the closed-form schedule runs one stream (co-located streams are simulated)");
  return workload.streams.front();
}

}  // namespace

std::vector<std::size_t> launched_kernels(const GpuWorkload& workload) {
  std::vector<std::size_t> kernels;
  std::vector<char> seen(workload.kernels.size(), 0);
  for (const KernelLaunch& l : the_one_stream(workload).launches)
    if (!seen[std::size_t(l.kernel)]) {
      seen[std::size_t(l.kernel)] = 1;
      kernels.push_back(std::size_t(l.kernel));
    }
  return kernels;
}

DeviceRun run_one_stream(const GpuWorkload& workload, const std::vector<KernelTiming>& timing) {
  // Built once: checked_add takes the message by reference, and a step has ~10^3 launches.
  static const std::string host_what = "GPU model: the stack's host time", step_what = "GPU model: a step";
  const StreamPlan& plan = the_one_stream(workload);
  if (timing.size() != workload.kernels.size())
    throw std::invalid_argument("GPU model: one timing per kernel of the workload expected");
  std::vector<KernelRecord> records(plan.launches.size());
  std::int64_t host = plan.start_cycle, device_free = plan.start_cycle;
  for (std::size_t i = 0; i < plan.launches.size(); ++i) {
    const KernelLaunch& l = plan.launches[i];
    const KernelTiming& t = timing[std::size_t(l.kernel)];
    host = models::checked_add(host, l.host_cycles_before, host_what);
    KernelRecord& r = records[i];
    r.enqueue = host;
    r.start = std::max(host, device_free);
    r.dispatch = r.start + t.launch_cycles;
    r.compute_end = r.dispatch + t.compute_cycles;
    r.memory_end = r.dispatch + t.memory_cycles;
    r.end = models::checked_add(r.start, t.total_cycles, step_what);
    device_free = r.end;
  }
  DeviceRun run;
  run.end_cycle = device_free;
  // A host that works on after its last launch ends the step where it outlasts the device.
  if (plan.host_after_cycles > 0)
    run.end_cycle = std::max(run.end_cycle, models::checked_add(host, plan.host_after_cycles, host_what));
  run.streams.push_back(std::move(records));
  return run;
}

DeviceRun run_closed_form(const GpuKernelModel& model, const GpuWorkload& workload) {
  std::vector<KernelTiming> timing(workload.kernels.size());
  for (std::size_t k : launched_kernels(workload)) timing[k] = model.time(workload.kernels[k]);
  return run_one_stream(workload, timing);
}

}  // namespace roofline
