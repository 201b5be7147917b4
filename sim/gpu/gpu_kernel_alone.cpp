#include "sim/gpu/gpu_kernel_alone.hpp"

#include <algorithm>

#include "sim/gpu/gpu_cta_dispatcher.hpp"
#include "sim/gpu/gpu_dram_controller.hpp"

namespace sim {

KernelAloneRun run_kernel_alone(const GpuKernelModel& model, const GpuKernel& kernel) {
  // The steps of GpuDeviceCore::settle for one dispatched kernel, with time jumping from one
  // completion to the next as the event-driven device does.
  GroupedSmArray sms(model.spec());
  DramController dram(model.dram_bytes_per_cycle());
  KernelAloneRun run;
  constexpr int kLaunch = 0;
  bool memory_done = kernel.dram_bytes <= 0;
  if (!memory_done) dram.add(kLaunch, kernel.dram_bytes);
  std::int64_t pending = kernel.ctas, done = 0, now = 0;
  bool compute_done = kernel.ctas == 0;
  CtaCompletions ctas_done;
  std::vector<int> bytes_done;
  for (;;) {
    for (bool progress = true; progress;) {
      progress = false;
      ctas_done.clear();
      sms.take_completions(ctas_done);
      for (const auto& [id, count] : ctas_done) done += count;
      if (!compute_done && done == kernel.ctas) compute_done = true, run.compute_cycles = now;
      bytes_done.clear();
      dram.take_completions(bytes_done);
      if (!bytes_done.empty()) memory_done = true, run.memory_cycles = now;
      if (pending > 0) {
        const std::int64_t placed = sms.place(kLaunch, kernel.cta, kernel.cta_cycles, pending);
        pending -= placed;
        if (placed > 0 && kernel.cta_cycles == 0) progress = true;  // zero-work CTAs retire now
      }
    }
    if (compute_done && memory_done) return run;
    std::int64_t next = -1;
    for (std::int64_t t : {sms.next_completion(), dram.next_completion()})
      if (t >= 0 && (next < 0 || t < next)) next = t;
    if (next < 0) {  // nothing can progress: a CTA that fits no SM
      run.completes = false;
      return run;
    }
    sms.advance(next);
    dram.advance(next);
    now += next;
  }
}

}  // namespace sim
