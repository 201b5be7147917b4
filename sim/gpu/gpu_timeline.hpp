#pragma once
// The kernel timeline of one GPU step: kernels of a single CUDA stream run back to back, so
// the next event (a kernel's end) is the previous end plus that kernel's launch and body.
// This is the event-driven core of the GPU `sim` engine; it runs without SystemC so it can be
// used any number of times per process. GpuStreamModule (gpu_systemc_stream.hpp) replays the
// same timeline as a SystemC process.
#include <cstdint>
#include <string>
#include <vector>

#include "models/operator_graph.hpp"
#include "sim/gpu_kernel_model.hpp"

namespace sim {

struct TimelineEntry {
  std::string op;        // operator-graph op the kernel belongs to
  GpuKernel kernel;
  KernelTiming timing;
  std::int64_t start_cycle = 0;  // launch begins
  std::int64_t end_cycle = 0;    // last CTA / last byte done
};

// Kernels of `ops` in graph order on one stream, starting at cycle `start`.
std::vector<TimelineEntry> schedule_ops(const GpuKernelModel& model, const std::vector<models::Op>& ops,
                                        int sequences, WaveTiming mode, std::int64_t start = 0);

}  // namespace sim
