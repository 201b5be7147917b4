#pragma once
// The host thread of one CUDA stream (event-driven mode): it spends each launch's host time
// (StreamPlan: per-step, per-layer and per-kernel dispatch costs, or one CUDA-graph launch) and
// then puts the kernel into the stream's launch queue. When the host is slower than the GPU,
// the stream runs dry and the GPU idles: launch-bound steps emerge from the simulation.
//
// An SC_METHOD that re-arms itself for the end of the next host time, not an SC_THREAD: the host
// never waits on the device, so it needs no stack of its own, and creating and switching one
// coroutine per stream and step was a fifth of specpipe-fig16's time on the sim engine.
#include <systemc>

#include <cstddef>
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

  SC_CTOR(GpuHostThread) { SC_METHOD(run); }

 private:
  std::size_t next_ = 0;         // the next launch to enqueue
  bool started_ = false;         // start_cycle has passed
  bool host_time_spent_ = false;  // the next launch's host_cycles_before has passed

  // Each activation: the host time waited for is over; enqueue every launch that needs no more,
  // then wait for the next one's host time.
  void run() {
    if (!plan) return;
    if (!started_) {
      started_ = true;
      if (plan->start_cycle > 0) return sc_core::next_trigger(double(plan->start_cycle) * cycle);
    }
    while (next_ < plan->launches.size()) {
      const KernelLaunch& launch = plan->launches[next_];
      if (launch.host_cycles_before > 0 && !host_time_spent_) {
        host_time_spent_ = true;
        return sc_core::next_trigger(double(launch.host_cycles_before) * cycle);
      }
      host_time_spent_ = false;
      enqueue(stream, std::int64_t(sc_core::sc_time_stamp() / cycle));
      enqueued->notify(sc_core::SC_ZERO_TIME);
      ++next_;
    }
  }
};

}  // namespace sim
