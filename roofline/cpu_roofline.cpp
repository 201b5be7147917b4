#include "roofline/cpu_roofline.hpp"

#include "models/cycle_range.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "models/config_error.hpp"
#include "models/engine_registry.hpp"

namespace roofline {

CpuRates cpu_rates(const models::CpuSpec& cpu) {
  CpuRates r;
  r.threads = std::max(1, std::min(cpu.threads, cpu.cores));
  r.clock_hz = cpu.clock_ghz * 1e9;
  r.flops_per_core_cycle = cpu.simd_flops_per_cycle * cpu.compute_efficiency;
  r.attention_flops_per_core_cycle =
      cpu.attention_compute_efficiency > 0 ? cpu.simd_flops_per_cycle * cpu.attention_compute_efficiency
                                           : r.flops_per_core_cycle;
  r.attention_extra_row_flops_per_core_cycle = cpu.attention_extra_row_compute_efficiency > 0
                                                   ? cpu.simd_flops_per_cycle * cpu.attention_extra_row_compute_efficiency
                                                   : 0.0;
  r.attention_extra_row_cycles_per_score = cpu.attention_extra_row_score_ns * 1e-9 * r.clock_hz;
  r.dram_bytes_per_cycle = cpu.dram_bandwidth_gbs * 1e9 * cpu.memory_efficiency / r.clock_hz;
  r.gemm_stream_bytes_per_cycle = cpu.gemm_stream_bandwidth_gbs * 1e9 / r.clock_hz;
  r.gemm_short_rows_max_k = cpu.gemm_short_rows_max_k;
  r.gemm_short_rows_bytes_per_cycle = cpu.gemm_short_rows_stream_bandwidth_gbs * 1e9 / r.clock_hz;
  // Only the cores running threads bring their private L2; L3 is shared (non-inclusive on the
  // Xeons modelled, so L2 and L3 capacities add up).
  r.cache_bytes = cpu.l2_kib_per_core * 1024.0 * r.threads + cpu.l3_mib * 1024.0 * 1024.0;
  r.overhead_cycles = models::checked_cycles(cpu.op_overhead_us * 1e-6 * r.clock_hz, "CPU model: op_overhead_us");
  return r;
}

CpuResidency cpu_residency(const models::StepGraph& graph, const CpuRates& rates) {
  double activations = 0;  // the largest op's activations: live at the same time
  for (const auto* ops : {&graph.layer_ops, &graph.tail_ops})
    for (const auto& op : *ops) activations = std::max(activations, op.activation_bytes);
  const double weights = graph.total_weight_bytes(), kv = graph.total_kv_read_bytes();
  CpuResidency r;
  // A decode loop touches the same weights every step; LRU keeps a cyclically touched set only
  // when all of it fits (a set slightly too large misses on every access), hence all or nothing.
  r.weights = weights + kv + activations <= rates.cache_bytes;
  // Otherwise the weights stream through; the KV cache (re-read every step, far smaller than the
  // weights of a large model) stays on chip while it fits beside the activations. This assumes
  // the streamed weights do not evict it (a hardware streaming / dead-block policy).
  r.kv = kv + activations <= rates.cache_bytes;
  return r;
}

std::int64_t CpuKernel::items_of_core(int c) const {
  const std::int64_t per_core = (items + threads - 1) / threads;
  const std::int64_t begin = std::min(items, std::int64_t(c) * per_core);
  const std::int64_t end = std::min(items, std::int64_t(c + 1) * per_core);
  return end - begin;
}

bool CpuKernel::operator<(const CpuKernel& o) const {
  return std::tie(items, item_cycles, item_dram_bytes, dram_bytes_per_cycle, overhead_cycles, threads,
                  stream_then_compute) <
         std::tie(o.items, o.item_cycles, o.item_dram_bytes, o.dram_bytes_per_cycle, o.overhead_cycles, o.threads,
                  o.stream_then_compute);
}

CpuKernel cpu_kernel(const models::Op& op, const CpuRates& rates, const CpuResidency& residency) {
  CpuKernel k;
  k.threads = rates.threads;
  k.overhead_cycles = rates.overhead_cycles;
  double item_flops = 0;
  if (op.kind == models::OpKind::gemm) {
    const std::int64_t blocks = (op.n + kCpuColumnBlock - 1) / kCpuColumnBlock;
    k.items = std::max<std::int64_t>(1, blocks * op.batch);
    // A ragged last block costs as much as a full one (the SIMD loop runs full width).
    item_flops = 2.0 * op.m * double(kCpuColumnBlock) * op.k;
  } else if (op.kind == models::OpKind::attention_qk || op.kind == models::OpKind::attention_pv) {
    k.items = std::max<std::int64_t>(1, op.batch);  // one (sequence, head) problem each
    item_flops = 2.0 * op.m * double(op.n) * op.k;
  } else {
    k.items = rates.threads;  // element-wise work splits evenly over the threads
    item_flops = op.flops / rates.threads;
  }
  // Dequantisation: each lane-operation takes one FMA lane slot, i.e. the issue time of 2 FLOPs.
  const double item_dequant_flops = 2.0 * op.dequant_weights * op.dequant_ops_per_weight / double(k.items);
  // Attention's per-head products (and their softmax) run at their own calibrated rate. Where
  // the config states one for them, a head's query rows after its first run at theirs: the first
  // row's products wait on the head's keys and values, the others read them from cache. (The
  // softmax, a few per cent of the work, stays at the first row's rate: its op has no rows.)
  const bool attention = op.kind == models::OpKind::attention_qk || op.kind == models::OpKind::attention_pv ||
                         op.kind == models::OpKind::softmax;
  const bool products = op.kind == models::OpKind::attention_qk || op.kind == models::OpKind::attention_pv;
  const double rate = attention ? rates.attention_flops_per_core_cycle : rates.flops_per_core_cycle;
  double item_core_cycles = (item_flops + item_dequant_flops) / rate;
  if (products && op.m > 1 && rates.attention_extra_row_flops_per_core_cycle > 0) {
    const double first_row = item_flops / double(op.m);
    item_core_cycles = (first_row + item_dequant_flops) / rate +
                       (item_flops - first_row) / rates.attention_extra_row_flops_per_core_cycle;
    // Each later row's score against each key (QK^T: n keys; PV: k keys) beyond its FLOPs.
    const double keys = double(op.kind == models::OpKind::attention_qk ? op.n : op.k);
    item_core_cycles += double(op.m - 1) * keys * rates.attention_extra_row_cycles_per_score;
  }
  k.item_cycles = models::checked_cycles(item_core_cycles, "CPU model: a work item's compute");

  double bytes = 0;
  if (!residency.weights) bytes += op.weight_bytes;
  if (!residency.kv) bytes += op.kv_read_bytes + op.kv_write_bytes;
  if (op.activation_bytes > rates.cache_bytes) bytes += op.activation_bytes;
  k.item_dram_bytes = bytes / double(k.items);
  // A GEMV reads the weights once, straight from DRAM, overlapping the stream with its FMAs. A
  // GEMM (M > 1) under a packing BLAS first packs its slice of the weights into cache-friendly
  // panels (at the packing rate: a faster one for rows short enough to pack whole), then runs
  // its kernel over them; one thread does the two one after the other (docs/cpu-model.md has
  // the measurements on Eigen that show both the serial sum and the row-length rates).
  const bool packed = rates.gemm_packs() && op.kind == models::OpKind::gemm && op.m > 1;
  k.dram_bytes_per_cycle = rates.dram_bytes_per_cycle;
  if (packed) {
    const bool short_rows = rates.gemm_short_rows_max_k > 0 && op.k <= rates.gemm_short_rows_max_k;
    k.dram_bytes_per_cycle = short_rows ? rates.gemm_short_rows_bytes_per_cycle : rates.gemm_stream_bytes_per_cycle;
    k.stream_then_compute = true;
  }
  return k;
}

CpuRegionTiming cpu_closed_form(const CpuKernel& k) {
  CpuRegionTiming t;
  t.compute_cycles = models::checked_mul(k.item_cycles, k.items_of_core(0), "CPU model: a kernel's compute");  // core 0 has the longest run
  const double bytes = k.dram_bytes();
  t.memory_cycles = bytes > 0 ? models::checked_cycles(bytes / k.dram_bytes_per_cycle, "CPU model: a kernel's DRAM traffic") : 0;
  t.overhead_cycles = k.overhead_cycles;
  const std::int64_t busy =
      k.stream_then_compute ? models::checked_add(t.compute_cycles, t.memory_cycles, "CPU model: a kernel")
                            : std::max(t.compute_cycles, t.memory_cycles);
  t.total_cycles = models::checked_add(t.overhead_cycles, busy, "CPU model: a kernel");
  return t;
}

CpuRooflineEngine::CpuRooflineEngine(models::HardwareSpec hw) : hw_(std::move(hw)) {
  if (!hw_.cpu)
    throw models::InputError(fmt::format("{}: kind: expected cpu for the CPU roofline engine", hw_.source_file));
  rates_ = cpu_rates(*hw_.cpu);
}

models::OpCost cpu_host_row(const models::SoftwareStack& stack, std::int64_t host_cycles, double clock_hz) {
  models::OpCost c;
  c.op = "(host: " + stack.name + ")";
  c.cycles = host_cycles;
  c.seconds = double(host_cycles) / clock_hz;
  c.stall_s = c.seconds;
  return c;
}

std::int64_t cpu_stack_host_cycles(const models::SoftwareStack& stack, const models::HostSpec& host,
                                   const models::StepGraph& graph, double clock_hz) {
  const double ops = double(graph.layer_ops.size()) * graph.layer_count + double(graph.tail_ops.size());
  const double per_step_us = graph.carries_step_work() && !graph.step_host_apart ? stack.step_host_us(graph.batch) : 0.0;
  const double per_draft_pass_us = graph.draft_pass ? stack.per_draft_pass_host_us : 0.0;
  const double host_us = per_step_us + per_draft_pass_us + stack.per_layer_host_us * graph.layer_host_share * graph.layer_count +
                         stack.kernel_launch_host_us * ops;
  return models::checked_cycles(host.host_us(host_us) * 1e-6 * clock_hz, "CPU model: the stack's host time");
}

models::StepCost CpuRooflineEngine::step(const models::StepGraph& graph, bool breakdown) const {
  const CpuResidency residency = cpu_residency(graph, rates_);
  models::StepCost cost;
  long long cycles = 0;  // summed in integer cycles, as the sim does (StepCost::cycles is the sim's)
  models::for_each_op_group(graph, [&](const std::vector<models::Op>& ops, int count, bool) {
    for (const auto& op : ops) {
      const CpuKernel k = cpu_kernel(op, rates_, residency);
      const CpuRegionTiming t = cpu_closed_form(k);
      cycles = models::checked_add(cycles, models::checked_mul(t.total_cycles, count, "CPU roofline: " + graph.label),
                                   "CPU roofline: " + graph.label);
      if (!breakdown) continue;
      models::OpCost oc;
      oc.op = op.name;
      oc.count = count;
      oc.seconds = t.total_cycles / rates_.clock_hz;
      oc.compute_s = t.compute_cycles / rates_.clock_hz;
      oc.memory_s = t.memory_cycles / rates_.clock_hz;
      oc.stall_s = t.overhead_cycles / rates_.clock_hz;
      if (oc.seconds > 0) {
        oc.compute_utilisation = op.flops / oc.seconds / hw_.peak_flops();
        oc.memory_utilisation = k.dram_bytes() / oc.seconds / hw_.peak_bandwidth_bytes();
      }
      cost.ops.push_back(oc);
    }
  });
  const std::int64_t host_cycles = cpu_stack_host_cycles(hw_.stack, hw_.host, graph, rates_.clock_hz);
  cycles = models::checked_add(cycles, host_cycles, "CPU roofline: " + graph.label);
  if (breakdown && host_cycles > 0) cost.ops.push_back(cpu_host_row(hw_.stack, host_cycles, rates_.clock_hz));
  cost.seconds = cycles / rates_.clock_hz;
  return cost;
}

namespace {
const models::EngineRegistration cpu_roofline_registration("roofline", "cpu",
                                            [](const models::HardwareSpec& hw) {
                                              return std::make_unique<CpuRooflineEngine>(hw);
                                            });
}  // namespace

}  // namespace roofline
