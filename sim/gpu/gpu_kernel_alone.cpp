#include "sim/gpu/gpu_kernel_alone.hpp"

#include "sim/gpu/gpu_cta_dispatcher.hpp"
#include "sim/gpu/gpu_device_core.hpp"
#include "sim/gpu/gpu_dram_controller.hpp"

namespace sim {

KernelAloneRun run_kernel_alone(const GpuKernelModel& model, const GpuKernel& kernel) {
  // The device's own bookkeeping (GpuDeviceCore::settle) on a workload of this one kernel, with
  // its launch phase dropped (the run counts from dispatch), time jumping from one completion to
  // the next as the event-driven device does.
  GpuWorkload alone;
  alone.kernels = {kernel};
  alone.kernels.front().launch_cycles = 0;
  alone.streams.push_back(StreamPlan{"alone", 0, {KernelLaunch{}}, 0});
  GpuDeviceCore core(alone);
  GroupedSmArray sms(model.spec());
  DramController dram(model.dram_bytes_per_cycle());
  core.enqueue(0, 0);
  for (std::int64_t now = 0;;) {
    core.settle(now, sms, dram);
    if (core.done()) {
      const KernelRecord r = core.result().streams.front().front();  // a copy: result() is a temporary
      return {r.compute_end - r.dispatch, r.memory_end - r.dispatch, true};
    }
    std::int64_t next = -1;
    for (std::int64_t t : {sms.next_completion(), dram.next_completion()})
      if (t >= 0 && (next < 0 || t < next)) next = t;
    if (next < 0) return {0, 0, false};  // nothing can progress: a CTA that fits no SM
    sms.advance(next);
    dram.advance(next);
    now += next;
  }
}

}  // namespace sim
