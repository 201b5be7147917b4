#include "roofline/gpu_roofline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/config_error.hpp"
#include "models/cycle_range.hpp"
#include "models/engine_registry.hpp"
#include "roofline/gpu_launch_plan.hpp"
#include "roofline/gpu_step_cost.hpp"
#include "roofline/gpu_stream_schedule.hpp"

namespace roofline {


namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Query rows of a flash-attention CTA and keys per inner iteration: the 64-row MMA tile that
// makes attention time step with the number of queries (as the GEMMs do with tokens).
constexpr std::int64_t kAttentionRowTile = 64;
constexpr std::int64_t kAttentionKeyTile = 64;
// Smallest K slice (split-K) and KV chunk (flash-decoding) worth a CTA: below this the
// partial-result traffic outweighs the extra parallelism.
constexpr std::int64_t kMinSplitSlice = 256;
constexpr int kMaxSplit = 32;
// Partial results of split-K and flash-decoding are accumulated in FP32.
constexpr double kPartialBytes = 4.0;


// --- CTA resources of the kernels a tuned stack launches ---------------------------------------
// GEMM: CUTLASS's default SM80+ tensor-op configuration: k-slices of 32 elements, a 3-stage
// cp.async pipeline, one warp per 32x64 warp tile (so 128x128 tiles run 8 warps = 256 threads,
// smaller tiles at least 4 warps), ~128 registers per thread (64 FP32 accumulators plus
// fragments and addresses, as nvcc reports for these kernels).
constexpr int kGemmKSlice = 32;
constexpr int kGemmStages = 3;
constexpr int kGemmRegistersPerThread = 128;
constexpr int kThreadsPerWarp = 32;
constexpr int kGemmWarpTileElements = 32 * 64;
// Flash attention (FlashAttention-2 / FlashInfer decode and prefill kernels): 4 warps per
// 64-row query tile; shared memory holds the Q tile and one K and one V tile of 64 keys; about
// 192 registers per thread for head_dim 128 (O accumulators and S fragments in registers).
constexpr int kAttentionThreads = 128;
constexpr int kAttentionRegistersPerThread = 192;
// Element-wise / norm kernels: 256-thread blocks of light threads (32 registers), a warp-sum
// scratch of 1 KiB for the norms' reductions.
constexpr int kElementwiseThreads = 256;
constexpr int kElementwiseRegistersPerThread = 32;
constexpr double kElementwiseSharedBytes = 1024;

CtaResources gemm_cta(int tile_m, int tile_n) {
  CtaResources c;
  const int warps = std::max(4, tile_m * tile_n / kGemmWarpTileElements);
  c.threads = warps * kThreadsPerWarp;
  c.registers_per_thread = kGemmRegistersPerThread;
  c.shared_memory_bytes = double(kGemmStages) * (tile_m + tile_n) * kGemmKSlice * 2.0;  // FP16 A and B slices
  return c;
}

CtaResources attention_cta(std::int64_t head_dim, double element_bytes) {
  CtaResources c;
  c.threads = kAttentionThreads;
  c.registers_per_thread = kAttentionRegistersPerThread;
  c.shared_memory_bytes = double(kAttentionRowTile + 2 * kAttentionKeyTile) * head_dim * element_bytes;
  return c;
}

CtaResources elementwise_cta() {
  CtaResources c;
  c.threads = kElementwiseThreads;
  c.registers_per_thread = kElementwiseRegistersPerThread;
  c.shared_memory_bytes = kElementwiseSharedBytes;
  return c;
}

}  // namespace

GpuKernelModel::GpuKernelModel(const models::GpuSpec& gpu) : gpu_(gpu) {
  clock_hz_ = gpu_.clock_mhz * 1e6;
  tensor_flops_per_sm_cycle_ =
      gpu_.tensor_tflops_fp16 * 1e12 * gpu_.tensor_efficiency / (double(gpu_.sms) * clock_hz_);
  // A spec built in code (not from YAML) may leave the attention figure unset: the GEMMs' then.
  const double attention_efficiency =
      gpu_.attention_tensor_efficiency > 0 ? gpu_.attention_tensor_efficiency : gpu_.tensor_efficiency;
  attention_flops_per_sm_cycle_ =
      gpu_.tensor_tflops_fp16 * 1e12 * attention_efficiency / (double(gpu_.sms) * clock_hz_);
  dram_bytes_per_cycle_ = gpu_.memory_bandwidth_gbs * 1e9 * gpu_.memory_efficiency / clock_hz_;
  // Element-wise kernels run on the CUDA cores; their FP16 rate is taken as 1/16 of the dense
  // tensor peak (the same assumption as roofline/gpu_roofline). They are memory-bound anyway.
  cuda_core_flops_per_cycle_ = gpu_.tensor_tflops_fp16 * 1e12 / 16.0 / clock_hz_;
  launch_cycles_ = std::llround(double(models::checked_cycles(gpu_.kernel_overhead_us * 1e-6 * clock_hz_,
                                                              "GPU model: kernel_overhead_us")));
  gemm_launch_cycles_ = models::checked_cycles((gpu_.kernel_overhead_us + gpu_.gemm_ramp_us) * 1e-6 * clock_hz_,
                                               "GPU model: kernel_overhead_us + gemm_ramp_us");
  isolated_launch_cycles_ = models::checked_cycles(gpu_.isolated_launch_us * 1e-6 * clock_hz_,
                                                   "GPU model: isolated_launch_us");
}

std::int64_t GpuKernelModel::cycles_for_bytes(double bytes) const {
  return bytes <= 0 ? 0 : models::checked_cycles(bytes / dram_bytes_per_cycle_, "GPU model: a kernel's DRAM traffic");
}

std::int64_t GpuKernelModel::cycles_for_flops(double flops, double flops_per_cycle) const {
  return flops <= 0 ? 0 : models::checked_cycles(flops / flops_per_cycle, "GPU model: a kernel's compute");
}

KernelTiming GpuKernelModel::time(const GpuKernel& k) const {
  KernelTiming t;
  t.launch_cycles = k.launch_cycles;
  t.memory_cycles = k.memory_cycles;
  if (k.ctas > 0) {
    // Wave quantisation: however many CTAs share an SM at once, an SM's tensor cores finish
    // ceil(ctas / SMs) CTAs' work in that many CTA times (the sim's per-SM sharing agrees).
    t.waves = ceil_div(k.ctas, gpu_.sms);
    t.compute_cycles = models::checked_mul(k.cta_cycles, t.waves, "GPU model: a kernel's waves");
  }
  t.total_cycles = models::checked_add(t.launch_cycles, std::max(t.compute_cycles, t.memory_cycles), "GPU model: a kernel");
  return t;
}

std::int64_t GpuKernelModel::total_cycles(const std::vector<GpuKernel>& kernels) const {
  std::int64_t cycles = 0;
  for (const auto& k : kernels) cycles = models::checked_add(cycles, time(k).total_cycles, "GPU model: kernels");
  return cycles;
}

int GpuKernelModel::ctas_per_sm(const GpuKernel& k) const {
  const CtaResources& c = k.cta;
  int fit = gpu_.sm_max_ctas;
  if (c.threads > 0) fit = std::min(fit, gpu_.sm_max_threads / c.threads);
  if (c.threads > 0 && c.registers_per_thread > 0)
    fit = std::min(fit, gpu_.sm_registers / (c.threads * c.registers_per_thread));
  if (c.shared_memory_bytes > 0)
    fit = std::min(fit, int(gpu_.sm_shared_memory_kib * 1024.0 / c.shared_memory_bytes));
  if (fit < 1)
    throw models::InputError(fmt::format(
        "kernel {}: one CTA ({} threads x {} registers, {:.0f} B shared memory) does not fit an SM "
        "(sm: max_threads {}, registers {}, shared_memory_kib {})",
        k.name, c.threads, c.registers_per_thread, c.shared_memory_bytes, gpu_.sm_max_threads,
        gpu_.sm_registers, gpu_.sm_shared_memory_kib));
  return fit;
}

void GpuKernelModel::set_memory(GpuKernel& k, double bytes) const {
  k.dram_bytes = bytes;
  k.memory_cycles = cycles_for_bytes(bytes);
}

GpuKernel GpuKernelModel::gemm_kernel(const std::string& name, std::int64_t m, std::int64_t n,
                                      std::int64_t k, std::int64_t batch, double dram_bytes,
                                      double /*element_bytes: the DRAM bytes already say it*/) const {
  std::vector<int> tiles_m = {64, gpu_.cta_tile_m};
  std::vector<int> tiles_n = {64, 128, gpu_.cta_tile_n};
  auto clean = [](std::vector<int>& v, int cap) {
    for (int& t : v) t = std::min(t, cap);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  clean(tiles_m, gpu_.cta_tile_m);
  clean(tiles_n, gpu_.cta_tile_n);
  const double l2_bytes = gpu_.l2_mib * 1024.0 * 1024.0;

  GpuKernel best;
  std::int64_t best_cycles = -1;
  // Larger tiles first, split 1 first: ties keep the simpler kernel (deterministic choice).
  for (auto tm = tiles_m.rbegin(); tm != tiles_m.rend(); ++tm)
    for (auto tn = tiles_n.rbegin(); tn != tiles_n.rend(); ++tn)
      for (int split = 1; split <= kMaxSplit; split *= 2) {
        if (split > 1 && k / split < kMinSplitSlice) break;
        GpuKernel g;
        g.name = name;
        g.tile_m = *tm;
        g.tile_n = *tn;
        g.split = split;
        g.launch_cycles = gemm_launch_cycles_;
        g.ctas = ceil_div(m, *tm) * ceil_div(n, *tn) * batch * split;
        // A CTA computes its whole padded tile: rows beyond M are zeros but still cost MMAs.
        g.cta_cycles = cycles_for_flops(2.0 * (*tm) * (*tn) * double(ceil_div(k, split)),
                                        tensor_flops_per_sm_cycle_);
        double bytes = dram_bytes;
        // Split-K partial sums stay in L2 while they fit; beyond it they spill to DRAM.
        const double partials = double(m) * n * batch * split * kPartialBytes * 2.0;
        if (split > 1 && partials > l2_bytes) bytes += partials;
        set_memory(g, bytes);
        g.cta = gemm_cta(g.tile_m, g.tile_n);
        const std::int64_t cycles = time(g).total_cycles;
        if (best_cycles < 0 || cycles < best_cycles) {
          best_cycles = cycles;
          best = g;
        }
      }
  return best;
}

GpuKernel GpuKernelModel::memory_kernel(const std::string& name, double bytes, double flops) const {
  GpuKernel g;
  g.name = name;
  g.launch_cycles = launch_cycles_;
  g.ctas = gpu_.sms;  // a grid-stride kernel: one wave over all SMs
  g.cta_cycles = cycles_for_flops(flops, cuda_core_flops_per_cycle_);
  set_memory(g, bytes);
  g.tile_m = g.tile_n = 0;
  g.cta = elementwise_cta();
  return g;
}

AttentionKeys attention_keys(const models::Op& qk) {
  // One query per sequence (plain decode, or one chain token) needs no mask: its keys are the
  // whole cache plus its own, which the serving stacks append to the cache before one
  // flash-decoding kernel. Only several queries (a tree or chain of x > 1) need the masked
  // suffix over this step's keys and the merge (paper 004 §3.1).
  if (qk.m == 1) return {qk.cached_keys + qk.new_keys, 0};
  return {qk.cached_keys, qk.new_keys};
}

std::vector<GpuKernel> GpuKernelModel::attention_kernels(const models::Op& qk, int sequences) const {
  // Flash-decoding splits the cached KV sequence into chunks so that enough CTAs exist to
  // fill the SMs; like a tuned library, take the split whose kernels finish first (ties: the
  // smaller split). Each candidate's time grows with x, so the minimum does too.
  std::vector<GpuKernel> best;
  std::int64_t best_cycles = -1;
  const std::int64_t prefix_keys = attention_keys(qk).prefix;
  for (int split = 1; split <= kMaxSplit; split *= 2) {
    if (split > 1 && prefix_keys / split < kMinSplitSlice) break;
    auto kernels = attention_kernels_with_split(qk, sequences, split);
    const std::int64_t cycles = total_cycles(kernels);
    if (best_cycles < 0 || cycles < best_cycles) {
      best_cycles = cycles;
      best = std::move(kernels);
    }
  }
  return best;
}

std::vector<GpuKernel> GpuKernelModel::attention_kernels_with_split(const models::Op& qk, int sequences,
                                                                    int split) const {
  std::vector<GpuKernel> out;
  const std::int64_t seqs = std::max(1, sequences);
  const std::int64_t heads = std::max<std::int64_t>(1, qk.batch / seqs);
  const std::int64_t kv_heads = qk.kv_heads > 0 ? qk.kv_heads : heads;
  const std::int64_t group = std::max<std::int64_t>(1, heads / kv_heads);
  const AttentionKeys split_keys = attention_keys(qk);
  const std::int64_t x = qk.m, d = qk.k, cached = split_keys.prefix, fresh = split_keys.suffix;
  const std::int64_t keys = cached + fresh;
  const double denom = double(seqs) * x * heads * (d + keys);
  const double elem = denom > 0 ? qk.activation_bytes / denom : 2.0;  // bytes per element
  // GQA packing (FlashInfer-style): the queries of all heads sharing a KV head form one row
  // block, so each K/V byte is read once per KV head.
  const std::int64_t rows = x * group;
  const std::int64_t row_tiles = ceil_div(rows, kAttentionRowTile);
  const double q_o_bytes = 2.0 * double(seqs) * heads * x * d * elem;
  const double state_bytes = double(seqs) * heads * x * (d + 1) * kPartialBytes;  // O and LSE
  int states_per_row = 0;

  if (cached > 0) {
    // Prefix: queries against the cached context, mask-free, KV split into `split` chunks.
    GpuKernel g;
    g.name = qk.name + "_prefix";
    g.tile_m = int(kAttentionRowTile);
    g.tile_n = int(kAttentionKeyTile);
    g.split = split;
    g.launch_cycles = launch_cycles_;
    g.ctas = seqs * kv_heads * row_tiles * split;
    const std::int64_t chunk_keys = ceil_div(ceil_div(cached, split), kAttentionKeyTile) * kAttentionKeyTile;
    // QK^T and PV: two padded 64-row MMAs per key tile.
    g.cta_cycles = cycles_for_flops(2.0 * 2.0 * kAttentionRowTile * chunk_keys * d,
                                    attention_flops_per_sm_cycle_);
    const double kv_bytes = 2.0 * double(seqs) * kv_heads * cached * d * elem;
    const double partial_bytes = split > 1 || fresh > 0 ? state_bytes * split : 0;
    set_memory(g, kv_bytes + q_o_bytes + partial_bytes);
    g.cta = attention_cta(d, elem);
    out.push_back(g);
    states_per_row += split;
  }
  if (fresh > 0) {
    // Suffix: queries against this step's own keys under the causal/tree mask; small.
    GpuKernel g;
    g.name = qk.name + "_suffix";
    g.tile_m = int(kAttentionRowTile);
    g.tile_n = int(kAttentionKeyTile);
    g.launch_cycles = launch_cycles_;
    g.ctas = seqs * kv_heads * row_tiles;
    const std::int64_t padded_keys = ceil_div(fresh, kAttentionKeyTile) * kAttentionKeyTile;
    g.cta_cycles = cycles_for_flops(2.0 * 2.0 * kAttentionRowTile * padded_keys * d,
                                    attention_flops_per_sm_cycle_);
    const double kv_bytes = 2.0 * double(seqs) * kv_heads * fresh * d * elem;
    const double mask_bytes = double(seqs) * x * fresh / 8.0;  // one bit per (query, key)
    const double partial_bytes = cached > 0 ? state_bytes : 0;
    set_memory(g, kv_bytes + q_o_bytes + mask_bytes + partial_bytes);
    g.cta = attention_cta(d, elem);
    out.push_back(g);
    states_per_row += 1;
  }
  if (states_per_row > 1) {
    // Log-sum-exp merge of the partial states (KV chunks of the prefix and the suffix).
    const double bytes = state_bytes * states_per_row + double(seqs) * heads * x * d * elem;
    const double flops = 4.0 * double(seqs) * heads * x * d * states_per_row;
    out.push_back(memory_kernel(qk.name + "_merge", bytes, flops));
  }
  return out;
}

std::vector<GpuKernel> GpuKernelModel::kernels_for(const models::Op& op, int sequences) const {
  switch (op.kind) {
    case models::OpKind::gemm: {
      const double bytes = op.weight_bytes + op.activation_bytes + op.kv_write_bytes;
      const double elem = (op.m * (op.n + op.k)) > 0 ? op.activation_bytes / double(op.m * (op.n + op.k)) : 2.0;
      return {gemm_kernel(op.name, op.m, op.n, op.k, op.batch, bytes, elem)};
    }
    case models::OpKind::attention_qk: return attention_kernels(op, sequences);
    case models::OpKind::attention_pv: return {};  // fused into the QK op's kernels
    case models::OpKind::softmax: return {};       // fused (online softmax)
    case models::OpKind::norm:
    case models::OpKind::elementwise:
      return {memory_kernel(op.name, op.activation_bytes + op.weight_bytes, op.flops)};
  }
  return {};
}


// --- analytic engine -------------------------------------------------------------------------

namespace {

const models::GpuSpec& require_gpu(const models::HardwareSpec& hw) {
  if (!hw.gpu)
    throw models::InputError(fmt::format("{}: kind: expected gpu for the GPU roofline engine", hw.source_file));
  return *hw.gpu;
}

}  // namespace

GpuRooflineEngine::GpuRooflineEngine(models::HardwareSpec hw) : hw_(std::move(hw)), model_(require_gpu(hw_)) {}

models::OpCost GpuRooflineEngine::op_cost(const models::Op& op, int sequences) const {
  const double hz = model_.clock_hz();
  models::OpCost c;
  c.op = op.name;
  std::int64_t compute = 0, memory = 0, launch = 0;
  for (const auto& k : model_.kernels_for(op, sequences)) {
    const KernelTiming t = model_.time(k);
    c.cycles = models::checked_add(c.cycles, t.total_cycles, "GPU roofline: op " + op.name);
    compute += t.compute_cycles;
    memory += t.memory_cycles;
    launch += t.launch_cycles;
  }
  c.seconds = c.cycles / hz;
  c.compute_s = compute / hz;
  c.memory_s = memory / hz;
  c.stall_s = launch / hz;  // launch and tail: neither tensor cores nor DRAM busy
  if (c.seconds > 0) {
    // The flash-attention kernels of a QK op also do its softmax and PV (same FLOPs, the V half
    // of the KV reads).
    const bool attention = op.kind == models::OpKind::attention_qk;
    const double flops = attention ? 2.0 * op.flops : op.flops;
    const double bytes = attention ? 2.0 * op.kv_read_bytes
                                   : op.weight_bytes + op.kv_read_bytes + op.activation_bytes;
    c.compute_utilisation = flops / c.seconds / hw_.peak_flops();
    c.memory_utilisation = bytes / c.seconds / hw_.peak_bandwidth_bytes();
  }
  return c;
}

models::StepCost GpuRooflineEngine::step(const models::StepGraph& graph, bool breakdown) const {
  if (graph.layer_count < 0) throw models::InputError(fmt::format("{}: layer_count: expected >= 0", graph.label));
  // The device's software stack launches the step (its host costs and extra kernels) exactly as
  // in the SystemC engine: the same launch plan, run through the closed-form schedule.
  GpuWorkload workload;
  workload.streams.push_back(lower_step(model_, hw_.stack, hw_.host, graph, "step", 0, workload));
  const DeviceRun run = run_closed_form(model_, workload);
  return step_cost_from_run(hw_, model_.clock_hz(), graph, workload, run, breakdown);
}

namespace {
const models::EngineRegistration gpu_roofline_registration("roofline", "gpu",
                                            [](const models::HardwareSpec& hw) {
                                              return std::make_unique<GpuRooflineEngine>(hw);
                                            });
}  // namespace

}  // namespace roofline
