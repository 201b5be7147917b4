#pragma once
// Analytic GPU engine (`--engine roofline` for kind: gpu) and the GPU kernel model both GPU
// engines share.
//
// GpuKernelModel turns operator-graph ops into the CUDA kernels a tuned inference stack
// launches (cuBLAS-style tiled GEMM with split-K, flash-decoding attention, tree attention as a
// mask-free prefix kernel plus a masked suffix kernel merged by log-sum-exp, memory-bound
// element-wise kernels), with each kernel's CTA count, per-CTA tensor work, per-CTA resources
// (threads, registers, shared memory: they decide occupancy) and DRAM bytes. time() is the
// closed form: launch + max(ceil(ctas / SMs) waves x CTA cycles, DRAM cycles). The analytic
// engine sums it; the SystemC engine (sim/gpu/) takes the very same kernels and produces their
// timing by simulating host launches, CTA dispatch over the SMs and a shared DRAM controller.
//
// The model lives here rather than in sim/ because roofline/ cannot depend on sim/ (sim links
// roofline); sim/gpu/gpu_kernel_model.hpp re-exports it under namespace sim.
#include <cstdint>
#include <string>
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/latency_engine.hpp"
#include "models/operator_graph.hpp"

namespace roofline {

// What one CTA of a kernel holds on its SM while it runs.
struct CtaResources {
  int threads = 0;
  int registers_per_thread = 0;
  double shared_memory_bytes = 0;
};

// One kernel launch: `ctas` CTAs of `cta_cycles` each (tensor/CUDA-core cycles of one CTA when
// it has its SM to itself), `dram_bytes` streamed from DRAM, after `launch_cycles` of fixed
// device-side cost inside a step (GpuSpec::kernel_overhead_us, plus gemm_ramp_us for a GEMM).
struct GpuKernel {
  std::string name;
  std::int64_t ctas = 0;
  std::int64_t cta_cycles = 0;
  double dram_bytes = 0;
  std::int64_t memory_cycles = 0;  // dram_bytes at the achievable bandwidth, kernel alone
  std::int64_t launch_cycles = 0;
  CtaResources cta;
  int tile_m = 0, tile_n = 0, split = 1;  // chosen tile and split-K / KV-split factor
};

// Closed-form timing of one kernel running alone.
struct KernelTiming {
  std::int64_t compute_cycles = 0;  // makespan of the CTA waves
  std::int64_t memory_cycles = 0;
  std::int64_t launch_cycles = 0;
  std::int64_t total_cycles = 0;    // launch + max(compute, memory)
  std::int64_t waves = 0;
};

// How an attention op's keys split between the mask-free prefix kernel (flash-decoding over
// the cache) and the masked suffix kernel over this step's own keys.
struct AttentionKeys {
  std::int64_t prefix = 0;
  std::int64_t suffix = 0;
};
AttentionKeys attention_keys(const models::Op& qk);

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

  KernelTiming time(const GpuKernel& kernel) const;
  // The kernels one after another on an idle GPU: the sum of their closed-form times.
  std::int64_t total_cycles(const std::vector<GpuKernel>& kernels) const;
  double seconds(const std::vector<GpuKernel>& kernels) const { return double(total_cycles(kernels)) / clock_hz_; }

  // CTAs of `kernel` that fit on one SM at once: the tightest of the SM's thread, register,
  // shared-memory and CTA limits. Throws models::InputError when not even one fits.
  int ctas_per_sm(const GpuKernel& kernel) const;

  double clock_hz() const { return clock_hz_; }
  double dram_bytes_per_cycle() const { return dram_bytes_per_cycle_; }
  std::int64_t cycles_for_bytes(double bytes) const;
  const models::GpuSpec& spec() const { return gpu_; }
  // An element-wise / grid-stride kernel (norms, activations, merges): one wave over all SMs.
  GpuKernel memory_kernel(const std::string& name, double bytes, double flops) const;
  // What a kernel timed alone from an idle GPU adds (GpuSpec::isolated_launch_us): goldens only.
  std::int64_t isolated_launch_cycles() const { return isolated_launch_cycles_; }

 private:
  std::vector<GpuKernel> attention_kernels(const models::Op& qk, int sequences) const;
  std::vector<GpuKernel> attention_kernels_with_split(const models::Op& qk, int sequences, int split) const;
  std::int64_t cycles_for_flops(double flops, double flops_per_cycle) const;
  void set_memory(GpuKernel& k, double bytes) const;

  models::GpuSpec gpu_;
  double clock_hz_;
  double tensor_flops_per_sm_cycle_;  // achievable tensor FLOPs per SM per cycle (GEMMs)
  double attention_flops_per_sm_cycle_;  // the same in the attention kernels
  double dram_bytes_per_cycle_;       // achievable DRAM bytes per cycle, whole device
  double cuda_core_flops_per_cycle_;  // element-wise work, whole device
  std::int64_t launch_cycles_;          // every kernel of a step
  std::int64_t gemm_launch_cycles_;     // a GEMM: the above plus its ramp
  std::int64_t isolated_launch_cycles_;
};

// The analytic engine: the step's launch plan under the device's software stack (the same plan
// the SystemC engine simulates, roofline/gpu_launch_plan.hpp), every kernel at its closed-form
// time, the host's launches and the device's kernels in the closed-form schedule of
// roofline/gpu_stream_schedule.hpp. Under the bare stack (no host costs) a step is the sum of
// its kernels' times.
class GpuRooflineEngine : public models::LatencyEngine {
 public:
  explicit GpuRooflineEngine(models::HardwareSpec hw);
  std::string name() const override { return "roofline"; }
  const models::HardwareSpec& hardware() const override { return hw_; }
  models::StepCost step(const models::StepGraph& graph, bool breakdown) const override;
  models::OpCost op_cost(const models::Op& op, int sequences = 1) const;
  const GpuKernelModel& kernel_model() const { return model_; }

 private:
  models::HardwareSpec hw_;
  GpuKernelModel model_;
};

}  // namespace roofline
