#pragma once
// SystemC view of the GPU kernel timeline: one SC_THREAD plays a CUDA stream, waiting for each
// kernel's launch and body (SM waves overlapped with DRAM streaming) as timed events. It is a
// thin wrapper over schedule_ops(): the test checks both give the same cycle counts. SystemC
// allows one elaboration and one sc_start per process, so call run_gpu_stream_systemc() at
// most once per process (ctest runs each test case in its own process).
#include <cstdint>
#include <vector>

#include "sim/gpu_timeline.hpp"

namespace sim {

struct SystemCStreamResult {
  std::int64_t end_cycle = 0;
  std::vector<std::int64_t> kernel_end_cycles;
};

SystemCStreamResult run_gpu_stream_systemc(const std::vector<TimelineEntry>& kernels, double clock_mhz);

}  // namespace sim
