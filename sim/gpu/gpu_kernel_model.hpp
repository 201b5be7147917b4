#pragma once
// GPU kernel-level model: turns operator-graph ops into the CUDA kernels a tuned inference
// stack launches (cuBLAS-style tiled GEMM with split-K, flash-decoding attention, tree attention
// as a mask-free prefix kernel plus a masked suffix kernel merged by log-sum-exp, memory-bound
// element-wise kernels) and times each kernel in integer SM-clock cycles.
//
// Every duration comes from the modelled micro-architecture: CTA tiles are padded to the tile
// shape (so a layer's time steps every 64 tokens), CTAs are scheduled in waves over the SMs
// (wave quantisation), HBM/GDDR traffic streams at the achievable bandwidth, and each kernel
// pays a launch overhead. The model is plain C++ (no SystemC), so engines can be built and
// queried any number of times in one process; sim/gpu_systemc_stream.hpp replays the resulting
// kernel timeline in SystemC.
#include <cstdint>
#include <string>
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/operator_graph.hpp"

namespace sim {

// One kernel launch: `ctas` CTAs of `cta_cycles` each, scheduled over the SMs, overlapped with
// `memory_cycles` of DRAM streaming, after `launch_cycles` of launch/tail overhead.
struct GpuKernel {
  std::string name;
  std::int64_t ctas = 0;
  std::int64_t cta_cycles = 0;     // tensor/CUDA-core cycles of one CTA
  std::int64_t memory_cycles = 0;  // DRAM bytes of the whole kernel at achievable bandwidth
  std::int64_t launch_cycles = 0;
  int tile_m = 0, tile_n = 0, split = 1;  // chosen tile and split-K / KV-split factor
};

// Timing of one kernel on the timeline.
struct KernelTiming {
  std::int64_t compute_cycles = 0;  // makespan of the CTA waves
  std::int64_t memory_cycles = 0;
  std::int64_t launch_cycles = 0;
  std::int64_t total_cycles = 0;    // launch + max(compute, memory)
  std::int64_t waves = 0;
};

// How CTA waves are timed: closed form (ceil(ctas / slots) waves, the event-driven path) or a
// CTA-by-CTA list schedule onto the earliest-free SM (the clocked reference; same answer).
enum class WaveTiming { closed_form, cta_list_schedule };

class GpuKernelModel {
 public:
  explicit GpuKernelModel(const models::GpuSpec& gpu);

  // Kernels for one op. `sequences` is the step's batch (graph.batch): attention ops carry
  // batch * heads in op.batch. Softmax and PV ops of an attention block return no kernels:
  // they are fused into the flash-attention kernel emitted for the QK op.
  std::vector<GpuKernel> kernels_for(const models::Op& op, int sequences) const;

  // Dense GEMM Y[m x n] = X[m x k] W^T for `batch` independent problems (cuBLAS-like choice
  // of tile and split-K minimising time).
  GpuKernel gemm_kernel(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k,
                        std::int64_t batch, double dram_bytes, double element_bytes) const;

  KernelTiming time(const GpuKernel& kernel, WaveTiming mode = WaveTiming::closed_form) const;

  double clock_hz() const { return clock_hz_; }
  std::int64_t cycles_for_bytes(double bytes) const;
  const models::GpuSpec& spec() const { return gpu_; }

 private:
  std::vector<GpuKernel> attention_kernels(const models::Op& qk, int sequences) const;
  std::vector<GpuKernel> attention_kernels_with_split(const models::Op& qk, int sequences, int split) const;
  GpuKernel memory_kernel(const std::string& name, double bytes, double flops) const;
  std::int64_t cycles_for_flops(double flops, double flops_per_cycle) const;

  models::GpuSpec gpu_;
  double clock_hz_;
  double tensor_flops_per_sm_cycle_;  // achievable tensor FLOPs per SM per cycle
  double dram_bytes_per_cycle_;       // achievable DRAM bytes per cycle, whole device
  double cuda_core_flops_per_cycle_;  // element-wise work, whole device
  std::int64_t launch_cycles_;
};

}  // namespace sim
