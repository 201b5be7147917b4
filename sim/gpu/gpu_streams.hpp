#pragma once
// Several CUDA streams on one GPU, for the system layer (sim/system): e.g. a target's
// verification step and a co-located draft model's passes (paper 002 §3.4). Each stream's host
// thread launches its graph's kernels in order (host costs from hw.stack); the streams share
// the SMs (CTA slots by occupancy) and the DRAM bandwidth, so each runs slower than alone.
#include <cstdint>
#include <string>
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/operator_graph.hpp"
#include "sim/sim_engine.hpp"

namespace sim {

struct GpuStreamWork {
  std::string name;
  models::StepGraph graph;
  double start_s = 0;  // when the stream's host thread begins (seconds from the run's start)
  // The graph run this many times back to back (a draft's passes): its launches repeated, each
  // repeat paying the stack's per-step host cost again. The host does not wait for the previous
  // repeat's kernels (no sampling sync), which matters only when the GPU is behind the host.
  int repeats = 1;
};

struct GpuStreamResult {
  std::string name;
  double start_s = 0, end_s = 0;  // end_s: the stream's last kernel done
  std::int64_t kernels = 0;       // kernel launches
};

// Simulates all streams together in one SystemC context; results in the order given.
// Throws models::InputError when hw is not a GPU.
std::vector<GpuStreamResult> run_gpu_streams(const models::HardwareSpec& hw, const std::vector<GpuStreamWork>& streams,
                                             SimMode mode);

}  // namespace sim
