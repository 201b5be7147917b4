#include "models/hardware_spec.hpp"

#include <fmt/format.h>

#include <limits>

#include "models/config_error.hpp"
#include "models/yaml_reader.hpp"

namespace models {

std::string to_string(HardwareKind kind) {
  switch (kind) {
    case HardwareKind::fpga: return "fpga";
    case HardwareKind::gpu: return "gpu";
    case HardwareKind::cpu: return "cpu";
  }
  return "?";
}

std::string to_string(MemoryType type) {
  switch (type) {
    case MemoryType::hbm: return "hbm";
    case MemoryType::ddr4: return "ddr4";
    case MemoryType::gddr6x: return "gddr6x";
    case MemoryType::ddr5: return "ddr5";
  }
  return "?";
}

namespace {

MemoryType memory_type(const YamlReader& r, const std::string& key) {
  const std::string v = r.one_of(key, {"hbm", "ddr4", "gddr6x", "ddr5"});
  if (v == "hbm") return MemoryType::hbm;
  if (v == "ddr4") return MemoryType::ddr4;
  if (v == "gddr6x") return MemoryType::gddr6x;
  return MemoryType::ddr5;
}

// Counts of hardware units (channels, SMs, cores, tile sizes) are stored in int: a value past
// its range is an error naming the key, never a wrapped count (issue 18).
constexpr long long kIntMax = std::numeric_limits<int>::max();

FpgaSpec load_fpga(const YamlReader& r) {
  FpgaSpec f;
  r.allow_only({"name", "kind", "description", "verify_includes_lm_head", "clock_mhz", "compute", "memory", "on_chip",
                "calibration"});
  f.clock_mhz = r.positive("clock_mhz");
  const YamlReader c = r.child("compute");
  c.allow_only({"slrs", "mm_mode", "mv_mode", "sfu_lanes"});
  f.slrs = c.int_in("slrs", 1, kIntMax);
  const YamlReader mm = c.child("mm_mode");
  mm.allow_only({"m", "k", "n"});
  f.mm_m = mm.int_in("m", 1, kIntMax);
  f.mm_k = mm.int_in("k", 1, kIntMax);
  f.mm_n = mm.int_in("n", 1, kIntMax);
  const YamlReader mv = c.child("mv_mode");
  mv.allow_only({"m", "k"});
  f.mv_m = mv.int_in("m", 1, kIntMax);
  f.mv_k = mv.int_in("k", 1, kIntMax);
  f.sfu_lanes = c.int_in("sfu_lanes", 1, kIntMax);
  const YamlReader m = r.child("memory");
  m.allow_only({"type", "bandwidth_gbs", "channels", "burst_bytes", "tensor_mapping"});
  f.memory_type = memory_type(m, "type");
  f.bandwidth_gbs = m.positive("bandwidth_gbs");
  f.channels = m.int_in("channels", 1, kIntMax);
  f.burst_bytes = m.int_in("burst_bytes", 1, kIntMax);
  const YamlReader map = m.child("tensor_mapping");
  map.allow_only({"weights", "activation_loads", "stores"});
  auto group = [&](const std::string& key) {
    const YamlReader g = map.child(key);
    g.allow_only({"channels", "efficiency"});
    FpgaChannelGroup out;
    out.channels = g.int_in("channels", 1, kIntMax);
    if (out.channels > f.channels)
      g.fail("channels", "at most memory.channels (" + std::to_string(f.channels) + ")", std::to_string(out.channels));
    out.efficiency = g.fraction("efficiency");
    return out;
  };
  f.weights = group("weights");
  f.activation_loads = group("activation_loads");
  f.stores = group("stores");
  const YamlReader b = r.child("on_chip");
  b.allow_only({"weight_buffer_kib", "weight_chunk_kib", "kv_buffer_kib", "kv_chunk_kib"});
  f.weight_buffer_kib = b.positive("weight_buffer_kib");
  f.weight_chunk_kib = b.positive("weight_chunk_kib");
  if (f.weight_chunk_kib * 2 > f.weight_buffer_kib)
    b.fail("weight_chunk_kib", "at most half of on_chip.weight_buffer_kib (double buffering)",
           std::to_string(f.weight_chunk_kib));
  f.kv_buffer_kib = b.positive("kv_buffer_kib");
  f.kv_chunk_kib = b.positive("kv_chunk_kib");
  if (f.kv_chunk_kib * 2 > f.kv_buffer_kib)
    b.fail("kv_chunk_kib", "at most half of on_chip.kv_buffer_kib (double buffering)",
           std::to_string(f.kv_chunk_kib));
  // Optional knobs for users who calibrate a board of their own; each defaults to neutral.
  if (const auto cal = r.optional_child("calibration")) {
    cal->allow_only({"attention_efficiency", "layer_overhead_cycles", "cross_attention_kv_read_factor"});
    if (cal->has("attention_efficiency")) f.attention_efficiency = cal->fraction("attention_efficiency");
    if (cal->has("layer_overhead_cycles")) f.layer_overhead_cycles = cal->int_in("layer_overhead_cycles", 0, kIntMax);
    if (cal->has("cross_attention_kv_read_factor"))
      f.cross_attention_kv_read_factor = cal->positive("cross_attention_kv_read_factor");
  }
  return f;
}

GpuSpec load_gpu(const YamlReader& r) {
  GpuSpec g;
  r.allow_only({"name", "kind", "description", "verify_includes_lm_head", "sms", "clock_mhz", "tensor_tflops_fp16",
                "l2_mib", "memory", "calibration", "kernels", "sm"});
  g.sms = r.int_in("sms", 1, kIntMax);
  g.clock_mhz = r.positive("clock_mhz");
  g.tensor_tflops_fp16 = r.positive("tensor_tflops_fp16");
  g.l2_mib = r.positive("l2_mib");
  const YamlReader m = r.child("memory");
  m.allow_only({"type", "bandwidth_gbs", "capacity_gib"});
  g.memory_type = memory_type(m, "type");
  g.memory_bandwidth_gbs = m.positive("bandwidth_gbs");
  g.memory_capacity_gib = m.positive("capacity_gib");
  const YamlReader cal = r.child("calibration");
  if (cal.has("kernel_launch_us"))
    throw InputError(fmt::format(
        "{}: calibration.kernel_launch_us: split since 2026-11-26 into kernel_overhead_us (every kernel "
        "inside a step), gemm_ramp_us (a GEMM's extra) and isolated_launch_us (a kernel timed alone); "
        "see configs/hardware/h100-sxm.yaml",
        r.file()));
  cal.allow_only({"memory_efficiency", "tensor_efficiency", "attention_tensor_efficiency", "kernel_overhead_us",
                  "gemm_ramp_us", "isolated_launch_us"});
  g.memory_efficiency = cal.fraction("memory_efficiency");
  g.tensor_efficiency = cal.fraction("tensor_efficiency");
  g.attention_tensor_efficiency =
      cal.has("attention_tensor_efficiency") ? cal.fraction("attention_tensor_efficiency") : g.tensor_efficiency;
  g.kernel_overhead_us = cal.non_negative("kernel_overhead_us");
  // Optional: 0 unless measured on that GPU (the GEMM then pays kernel_overhead_us alone).
  g.gemm_ramp_us = cal.has("gemm_ramp_us") ? cal.non_negative("gemm_ramp_us") : 0.0;
  g.isolated_launch_us = cal.has("isolated_launch_us") ? cal.non_negative("isolated_launch_us") : 0.0;
  const YamlReader k = r.child("kernels");
  k.allow_only({"cta_tile_m", "cta_tile_n"});
  g.cta_tile_m = k.int_in("cta_tile_m", 1, kIntMax);
  g.cta_tile_n = k.int_in("cta_tile_n", 1, kIntMax);
  const YamlReader sm = r.child("sm");
  sm.allow_only({"max_threads", "registers", "shared_memory_kib", "max_ctas"});
  g.sm_max_threads = sm.int_in("max_threads", 1, kIntMax);
  g.sm_registers = sm.int_in("registers", 1, kIntMax);
  g.sm_shared_memory_kib = sm.positive("shared_memory_kib");
  g.sm_max_ctas = sm.int_in("max_ctas", 1, kIntMax);
  return g;
}

CpuSpec load_cpu(const YamlReader& r) {
  CpuSpec c;
  r.allow_only({"name", "kind", "description", "verify_includes_lm_head", "cores", "clock_ghz", "simd_flops_per_cycle",
                "l2_kib_per_core", "l3_mib", "threads", "memory", "calibration"});
  c.cores = r.int_in("cores", 1, kIntMax);
  c.clock_ghz = r.positive("clock_ghz");
  c.simd_flops_per_cycle = r.positive("simd_flops_per_cycle");
  c.l2_kib_per_core = r.positive("l2_kib_per_core");
  c.l3_mib = r.positive("l3_mib");
  c.threads = r.int_in_or("threads", 1, kIntMax, c.cores);
  const YamlReader m = r.child("memory");
  m.allow_only({"bandwidth_gbs", "capacity_gib"});
  c.dram_bandwidth_gbs = m.positive("bandwidth_gbs");
  // Optional: DRAM capacity for the memory-fit check (a CPU draft of a few hundred MB fits any server).
  c.memory_capacity_gib = m.has("capacity_gib") ? m.positive("capacity_gib") : 0.0;
  const YamlReader cal = r.child("calibration");
  cal.allow_only({"compute_efficiency", "memory_efficiency", "op_overhead_us", "gemm_stream_bandwidth_gbs"});
  c.compute_efficiency = cal.fraction("compute_efficiency");
  c.memory_efficiency = cal.fraction("memory_efficiency");
  // Optional: fork/join cost of one parallel region, measured by `specdse calibrate-host`.
  c.op_overhead_us = cal.has("op_overhead_us") ? cal.non_negative("op_overhead_us") : 0.0;
  c.gemm_stream_bandwidth_gbs =
      cal.has("gemm_stream_bandwidth_gbs") ? cal.positive("gemm_stream_bandwidth_gbs") : 0.0;
  return c;
}

}  // namespace

double HardwareSpec::peak_flops() const {
  if (fpga) return 2.0 * fpga->macs_per_cycle_mm() * fpga->clock_mhz * 1e6;
  if (gpu) return gpu->tensor_tflops_fp16 * 1e12;
  if (cpu) return cpu->cores * cpu->simd_flops_per_cycle * cpu->clock_ghz * 1e9;
  return 0;
}

double HardwareSpec::peak_bandwidth_bytes() const {
  if (fpga) return fpga->bandwidth_gbs * 1e9;
  if (gpu) return gpu->memory_bandwidth_gbs * 1e9;
  if (cpu) return cpu->dram_bandwidth_gbs * 1e9;
  return 0;
}

double HardwareSpec::memory_capacity_bytes() const {
  constexpr double gib = 1024.0 * 1024.0 * 1024.0;
  if (gpu) return gpu->memory_capacity_gib * gib;
  if (cpu) return cpu->memory_capacity_gib * gib;
  return 0;  // FPGA boards: the weights stream from HBM/DDR sized for the model (paper 000)
}

HardwareSpec load_hardware(const std::string& path) {
  const YamlReader r = YamlReader::open(path);
  HardwareSpec hw;
  hw.source_file = path;
  hw.name = r.string("name");
  hw.description = r.string_or("description", "");
  const std::string kind = r.one_of("kind", {"fpga", "gpu", "cpu"});
  if (kind == "fpga") {
    hw.kind = HardwareKind::fpga;
    hw.fpga = load_fpga(r);
  } else if (kind == "gpu") {
    hw.kind = HardwareKind::gpu;
    hw.gpu = load_gpu(r);
  } else {
    hw.kind = HardwareKind::cpu;
    hw.cpu = load_cpu(r);
  }
  hw.verify_includes_lm_head = r.boolean_or("verify_includes_lm_head", true);
  return hw;
}

}  // namespace models
