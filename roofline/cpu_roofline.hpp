#pragma once
// CPU kernel decomposition shared by both CPU engines, and the analytic CPU engine on top of it.
//
// Every op runs as one fork/join parallel region (llama.cpp synchronises its threads between
// ops): its work is cut into items (GEMM: kCpuColumnBlock output columns of W; attention: one
// (sequence, head) problem; element-wise ops: one even slice per thread), items are dealt to the
// cores in contiguous runs (static schedule), each core issues SIMD FMAs (plus the
// dequantisation of quantised weights) at its calibrated rate, and the bytes that miss the
// caches stream from DRAM. The cache model is per step: if the whole working set (weights, KV
// cache, the largest op's activations) fits in L2 + L3, nothing streams; otherwise weights
// stream and the KV cache stays on chip while it fits beside the activations.
//
// The analytic engine (`--engine roofline`) times a region in closed form:
//   overhead + max(ceil(items / threads) * item_cycles, ceil(DRAM bytes / DRAM rate)),
// or, for a GEMM that packs its weights before its kernel runs (Eigen), the sum of the two: the
// busiest core's stream ends when all bytes have streamed (a core that finishes its own stream
// first leaves it the whole bandwidth), and its compute follows.
// The SystemC engine (sim/cpu) simulates the same items on cores that share the DRAM
// bandwidth; both report integer core-clock cycles.
#include <cstdint>
#include <vector>

#include "models/latency_engine.hpp"

namespace roofline {

// Columns of W per GEMM work item; the golden GEMM harness (sim/golden) splits its work the same.
constexpr std::int64_t kCpuColumnBlock = 16;

// A CPU's rates in core-clock cycles.
struct CpuRates {
  int threads = 1;                     // cores running the op's threads
  double clock_hz = 0;
  double flops_per_core_cycle = 0;     // SIMD FP32 FLOPs per core per cycle, calibrated
  double attention_flops_per_core_cycle = 0;  // the same in attention's small per-head products
  // The same in a head's query rows after its first (CpuSpec::attention_extra_row_compute_efficiency;
  // 0: every row at attention_flops_per_core_cycle).
  double attention_extra_row_flops_per_core_cycle = 0;
  // Those rows' cost per score beyond their FLOPs, in each product (CpuSpec::attention_extra_row_score_ns).
  double attention_extra_row_cycles_per_score = 0;
  double dram_bytes_per_cycle = 0;     // all cores together, calibrated
  // M > 1 GEMMs pack their weights into panels before their kernel runs (a BLAS such as Eigen;
  // the calibration declares a packing rate), at these rates: rows of at most
  // gemm_short_rows_max_k weights (whole rows per panel, 0: none), the rest. 0: no packing pass.
  bool gemm_packs() const { return gemm_stream_bytes_per_cycle > 0; }
  double gemm_stream_bytes_per_cycle = 0;
  std::int64_t gemm_short_rows_max_k = 0;
  double gemm_short_rows_bytes_per_cycle = 0;
  double cache_bytes = 0;              // L2 of the running cores + shared L3
  std::int64_t overhead_cycles = 0;    // fork/join of one parallel region
};
CpuRates cpu_rates(const models::CpuSpec& cpu);

// Which data stay in the caches across the steps of a decode loop.
struct CpuResidency {
  bool weights = false;  // the whole working set fits: weights are read from L2/L3
  bool kv = false;       // the KV cache (with the activations) fits
};
// Residency for a step's working set.
CpuResidency cpu_residency(const models::StepGraph& graph, const CpuRates& rates);

// One op as a parallel region of identical work items.
struct CpuKernel {
  std::int64_t items = 0;               // work items dealt to the cores
  std::int64_t item_cycles = 0;         // SIMD cycles of one item (FMAs + dequantisation)
  double item_dram_bytes = 0;           // DRAM bytes one item streams (cache misses)
  double dram_bytes_per_cycle = 0;      // DRAM rate this op's stream achieves (all cores)
  // Whether each core streams all its bytes first and computes after (a GEMM packing its
  // weights, then running its kernel over the panels), instead of overlapping the two.
  bool stream_then_compute = false;
  std::int64_t overhead_cycles = 0;     // fork/join
  int threads = 1;

  double dram_bytes() const { return item_dram_bytes * double(items); }
  // Items of core `c` under the static schedule: contiguous runs of ceil(items / threads), as
  // OpenMP's static schedule and the golden harness deal them (the last cores may get none).
  std::int64_t items_of_core(int c) const;
  bool operator<(const CpuKernel& o) const;  // memo key order
};
CpuKernel cpu_kernel(const models::Op& op, const CpuRates& rates, const CpuResidency& residency);

struct CpuRegionTiming {
  std::int64_t compute_cycles = 0;   // busiest core's SIMD cycles
  std::int64_t memory_cycles = 0;    // DRAM traffic at the op's rate
  std::int64_t overhead_cycles = 0;  // fork/join
  std::int64_t total_cycles = 0;     // overhead + max(compute, memory), or their sum (stream_then_compute)
};
CpuRegionTiming cpu_closed_form(const CpuKernel& kernel);

// The software stack's host work in one step on a CPU device (graph build and sampling per step,
// a thread-pool barrier per op, framework work per layer), in cycles at `clock_hz`. It runs on
// the same cores between the parallel regions, so both CPU engines add it in series to the
// regions' time. `host` scales the stack's figures (on a CPU device the host is the device's own
// cores running the framework: models/host_spec.hpp).
std::int64_t cpu_stack_host_cycles(const models::SoftwareStack& stack, const models::HostSpec& host,
                                   const models::StepGraph& graph, double clock_hz);

// The breakdown row of that host work (all of it stall: neither SIMD units nor DRAM are busy).
models::OpCost cpu_host_row(const models::SoftwareStack& stack, std::int64_t host_cycles, double clock_hz);

class CpuRooflineEngine : public models::LatencyEngine {
 public:
  explicit CpuRooflineEngine(models::HardwareSpec hw);
  std::string name() const override { return "roofline"; }
  const models::HardwareSpec& hardware() const override { return hw_; }
  models::StepCost step(const models::StepGraph& graph, bool breakdown) const override;

 private:
  models::HardwareSpec hw_;
  CpuRates rates_;
};

}  // namespace roofline
