#pragma once
// Stream and kernel bookkeeping of the simulated GPU, shared by the event-driven and clocked
// processes (which differ in how time advances and how SMs and DRAM are represented): at a
// given cycle, apply the CTA and DRAM completions, retire finished kernels, start the next
// enqueued kernel of every idle stream, end launch phases, and hand pending CTAs to the SMs.
#include <cstdint>
#include <vector>

#include "sim/gpu/gpu_cta_dispatcher.hpp"
#include "sim/gpu/gpu_dram_controller.hpp"
#include "sim/gpu/gpu_launch_plan.hpp"

namespace sim {

class GpuDeviceCore {
 public:
  GpuDeviceCore(const GpuWorkload& workload);

  // The host thread of `stream` puts its next launch into the launch queue at `now`.
  void enqueue(int stream, std::int64_t now);
  // Applies everything that happens at cycle `now`. SmArray: GroupedSmArray or ClockedSmArray.
  template <class SmArray>
  void settle(std::int64_t now, SmArray& sms, DramController& dram);
  // Earliest launch phase ending after `now`, or -1.
  std::int64_t next_launch_end() const;
  bool done() const;
  DeviceRun result() const;
  bool host_done(int stream) const { return enqueued_[stream] == workload_.streams[stream].launches.size(); }

 private:
  struct Running {
    int stream = 0;
    const GpuKernel* kernel = nullptr;
    KernelRecord* record = nullptr;
    std::int64_t launch_end = 0;
    std::int64_t pending_ctas = 0;
    std::int64_t done_ctas = 0;
    bool dispatched = false;
    bool memory_done = false;
  };
  const GpuWorkload& workload_;
  std::vector<std::vector<KernelRecord>> records_;
  std::vector<std::size_t> enqueued_;  // per stream: launches the host has enqueued
  std::vector<std::size_t> next_;      // per stream: next launch to start
  std::vector<int> current_;           // per stream: running launch id or -1
  std::vector<Running> launches_;      // launch ids in start order
  std::vector<int> dispatch_order_;    // launches with CTAs still to place, oldest first
  CtaCompletions cta_done_;
  std::vector<int> bytes_done_;
};

}  // namespace sim
