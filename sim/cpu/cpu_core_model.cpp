#include "sim/cpu_core_model.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <vector>

namespace sim {

CpuCoreModel::CpuCoreModel(const models::CpuSpec& cpu) : cpu_(cpu) {
  threads_ = std::max(1, std::min(cpu_.threads, cpu_.cores));
  clock_hz_ = cpu_.clock_ghz * 1e9;
  flops_per_thread_cycle_ = cpu_.simd_flops_per_cycle * cpu_.compute_efficiency;
  dram_bytes_per_cycle_ = cpu_.dram_bandwidth_gbs * 1e9 * cpu_.memory_efficiency / clock_hz_;
  gemm_stream_bytes_per_cycle_ = cpu_.gemm_stream_bandwidth_gbs > 0
                                     ? cpu_.gemm_stream_bandwidth_gbs * 1e9 / clock_hz_
                                     : dram_bytes_per_cycle_;
  cache_bytes_ = cpu_.l2_kib_per_core * 1024.0 * threads_ + cpu_.l3_mib * 1024.0 * 1024.0;
}

double CpuCoreModel::dram_bytes(const models::Op& op) const {
  // Weights and the KV cache are streamed from DRAM every step (a decode step touches far
  // more than the caches hold); activations stay cached unless they overflow L2 + L3.
  double bytes = op.weight_bytes + op.kv_read_bytes + op.kv_write_bytes;
  if (op.activation_bytes > cache_bytes_) bytes += op.activation_bytes;
  return bytes;
}

CpuOpTiming CpuCoreModel::time(const models::Op& op, ThreadTiming mode) const {
  // Work items and the FLOPs of each.
  std::int64_t items = 1;
  double flops_per_item = op.flops;
  if (op.kind == models::OpKind::gemm) {
    const std::int64_t blocks = (op.n + kCpuColumnBlock - 1) / kCpuColumnBlock;
    items = std::max<std::int64_t>(1, blocks * op.batch);
    flops_per_item = 2.0 * op.m * double(kCpuColumnBlock) * op.k;
  } else if (op.kind == models::OpKind::attention_qk || op.kind == models::OpKind::attention_pv) {
    items = std::max<std::int64_t>(1, op.batch);
    flops_per_item = 2.0 * op.m * double(op.n) * op.k;
  } else {
    items = threads_;  // element-wise work splits evenly
    flops_per_item = op.flops / threads_;
  }
  const auto item_cycles = std::int64_t(std::ceil(flops_per_item / flops_per_thread_cycle_));
  CpuOpTiming t;
  if (mode == ThreadTiming::closed_form) {
    // Static schedule: each thread gets a contiguous share of ceil(items / threads) items.
    t.compute_cycles = ((items + threads_ - 1) / threads_) * item_cycles;
  } else {
    std::priority_queue<std::int64_t, std::vector<std::int64_t>, std::greater<>> free_at;
    for (int i = 0; i < threads_; ++i) free_at.push(0);
    for (std::int64_t i = 0; i < items; ++i) {
      const std::int64_t end = free_at.top() + item_cycles;
      free_at.pop();
      free_at.push(end);
      t.compute_cycles = std::max(t.compute_cycles, end);
    }
  }
  const double bytes = dram_bytes(op);
  // A GEMV reads the weights once, straight from DRAM; a GEMM (M > 1) first packs them into
  // cache-friendly panels, which streams them at the (lower) packing rate.
  const bool packed = op.kind == models::OpKind::gemm && op.m > 1;
  const double rate = packed ? gemm_stream_bytes_per_cycle_ : dram_bytes_per_cycle_;
  t.memory_cycles = bytes > 0 ? std::int64_t(std::ceil(bytes / rate)) : 0;
  t.overhead_cycles = std::llround(cpu_.op_overhead_us * 1e-6 * clock_hz_);
  t.total_cycles = t.overhead_cycles + std::max(t.compute_cycles, t.memory_cycles);
  return t;
}

}  // namespace sim
