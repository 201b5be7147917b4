#pragma once
// The host thread of one CUDA stream (event-driven mode): it spends each launch's host time
// (StreamPlan: per-step, per-layer and per-kernel dispatch costs, or one CUDA-graph launch) and
// then puts the kernel into the stream's launch queue. When the host is slower than the GPU,
// the stream runs dry and the GPU idles: launch-bound steps emerge from the simulation.
#include <systemc>

#include <functional>

#include "sim/gpu/gpu_launch_plan.hpp"

namespace sim {

SC_MODULE(GpuHostThread) {
  // Called for each launch when it enters the launch queue (stream index, cycle).
  std::function<void(int, std::int64_t)> enqueue;
  sc_core::sc_event* enqueued = nullptr;  // notified after each batch of enqueues
  const StreamPlan* plan = nullptr;
  int stream = 0;
  sc_core::sc_time cycle;

  SC_CTOR(GpuHostThread) { SC_THREAD(run); }

  void run() {
    if (!plan) return;
    if (plan->start_cycle > 0) wait(double(plan->start_cycle) * cycle);
    for (const auto& launch : plan->launches) {
      if (launch.host_cycles_before > 0) wait(double(launch.host_cycles_before) * cycle);
      enqueue(stream, std::int64_t(sc_core::sc_time_stamp() / cycle));
      enqueued->notify(sc_core::SC_ZERO_TIME);
    }
  }
};

}  // namespace sim
