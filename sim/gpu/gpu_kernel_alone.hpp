#pragma once
// A kernel alone on an empty device: its CTA waves through the dispatcher and its bytes through
// the DRAM controller, from the cycle its launch phase ends to its last CTA and its last byte.
//
// With one stream, kernels never overlap (a stream runs its kernels in order), so each kernel
// starts on empty SMs and an idle DRAM controller and takes the same cycles wherever it runs in
// the step: the event-driven device times each distinct kernel of a single-stream workload once
// with this, by its own bookkeeping (GpuDeviceCore::settle) on that kernel alone, and the
// launches follow the host/stream recurrence of roofline/gpu_stream_schedule.hpp (gpu_device.cpp);
// several streams (contention) and the clocked mode run every CTA in the SystemC model.
#include <cstdint>

#include "sim/gpu/gpu_kernel_model.hpp"

namespace sim {

struct KernelAloneRun {
  std::int64_t compute_cycles = 0;  // dispatch -> last CTA retired (0: no CTAs)
  std::int64_t memory_cycles = 0;   // dispatch -> last byte transferred (0: no bytes)
  bool completes = true;            // false: a CTA fits no SM, the kernel never ends
};

KernelAloneRun run_kernel_alone(const GpuKernelModel& model, const GpuKernel& kernel);

}  // namespace sim
