#pragma once
// The simulated GPU: host threads (one per CUDA stream, gpu_host_thread.hpp) fill the streams'
// launch queues; each stream runs its kernels in order (a kernel starts when the previous one
// of its stream is done and the host has enqueued it, pays the device-side launch cost, then
// its CTAs go to the CTA dispatcher and its bytes to the DRAM controller; it ends when both are
// done). Streams run concurrently and share the SMs and the DRAM bandwidth.
//
// run_gpu_device() builds the SystemC model in its own context (sim/sc_session.hpp) and runs
// it event-driven (one SC_METHOD for the device that computes the next event: a CTA
// completion, a kernel's last byte, a launch ending, or a host enqueue) or clocked (one
// SC_THREAD advancing host countdowns, DRAM bytes and per-SM CTA countdowns every cycle).
// Event-driven with one stream, no two kernels overlap: each distinct kernel is timed alone
// (gpu_kernel_alone.hpp) and the launches follow the host/stream recurrence of
// roofline/gpu_stream_schedule.hpp, the records the SystemC model would write, without it.
#include "models/hardware_spec.hpp"
#include "sim/gpu/gpu_launch_plan.hpp"
#include "sim/sim_engine.hpp"

namespace sim {

DeviceRun run_gpu_device(const GpuKernelModel& model, const GpuWorkload& workload, SimMode mode);

}  // namespace sim
