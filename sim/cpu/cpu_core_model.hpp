#pragma once
// CPU model for draft models on the host side (paper 003: Llama-68m on a 16-core Xeon).
// Each op runs as one fork/join parallel region over `threads` cores: GEMM columns are dealt
// out in blocks of kCpuColumnBlock (attention: one (sequence, head) problem per work item),
// each core issues SIMD FMAs at its calibrated rate, all cores share the DRAM bandwidth, and
// activations stay in the caches while they fit in L2 + L3. Durations are integer core-clock
// cycles. Plain C++; no SystemC needed.
#include <cstdint>
#include <string>

#include "models/hardware_spec.hpp"
#include "models/operator_graph.hpp"

namespace sim {

// Columns of W per work item; the golden GEMM harness splits its work the same way.
constexpr std::int64_t kCpuColumnBlock = 16;

enum class ThreadTiming { closed_form, item_list_schedule };

struct CpuOpTiming {
  std::int64_t compute_cycles = 0;   // slowest thread's SIMD cycles
  std::int64_t memory_cycles = 0;    // DRAM traffic at the achievable bandwidth
  std::int64_t overhead_cycles = 0;  // fork/join of the parallel region
  std::int64_t total_cycles = 0;     // overhead + max(compute, memory)
};

class CpuCoreModel {
 public:
  explicit CpuCoreModel(const models::CpuSpec& cpu);
  CpuOpTiming time(const models::Op& op, ThreadTiming mode = ThreadTiming::closed_form) const;
  double clock_hz() const { return clock_hz_; }
  int threads() const { return threads_; }
  double dram_bytes(const models::Op& op) const;

 private:
  models::CpuSpec cpu_;
  int threads_;
  double clock_hz_;
  double flops_per_thread_cycle_;
  double dram_bytes_per_cycle_;
  double gemm_stream_bytes_per_cycle_;  // weights of M > 1 GEMMs (packed before use)
  double cache_bytes_;
};

}  // namespace sim
