// CPUs: CpuSpec from configs/hardware/*.yaml with `kind: cpu`. Engines: roofline/cpu_roofline.cpp,
// sim/cpu/cpu_sim_engine.cpp.

#include "models/config_error.hpp"
#include "models/device_kind.hpp"
#include "models/device_kinds/kind_parts.hpp"

namespace models {
namespace {

using namespace kind_parts;

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
  cal.allow_only({"compute_efficiency", "memory_efficiency", "op_overhead_us", "gemm_stream_bandwidth_gbs",
                  "attention_compute_efficiency", "attention_extra_row_compute_efficiency",
                  "attention_extra_row_score_ns", "gemm_short_rows_max_k",
                  "gemm_short_rows_stream_bandwidth_gbs"});
  c.compute_efficiency = cal.fraction("compute_efficiency");
  c.memory_efficiency = cal.fraction("memory_efficiency");
  // Optional: fork/join cost of one parallel region, measured by `specdse calibrate-host`.
  c.op_overhead_us = cal.has("op_overhead_us") ? cal.non_negative("op_overhead_us") : 0.0;
  c.gemm_stream_bandwidth_gbs =
      cal.has("gemm_stream_bandwidth_gbs") ? cal.positive("gemm_stream_bandwidth_gbs") : 0.0;
  // Optional, together: rows of up to max_k weights pack at their own (faster) rate.
  if (cal.has("gemm_short_rows_max_k") || cal.has("gemm_short_rows_stream_bandwidth_gbs")) {
    if (c.gemm_stream_bandwidth_gbs <= 0)
      cal.fail("gemm_short_rows_max_k", "gemm_stream_bandwidth_gbs beside it (the packing rate of longer rows)",
               "none");
    c.gemm_short_rows_max_k = cal.int_in("gemm_short_rows_max_k", 1, kIntMax);
    c.gemm_short_rows_stream_bandwidth_gbs = cal.positive("gemm_short_rows_stream_bandwidth_gbs");
  }
  c.attention_compute_efficiency =
      cal.has("attention_compute_efficiency") ? cal.fraction("attention_compute_efficiency") : 0.0;
  // Optional: the rows after a head's first, relative to that first row's calibrated rate.
  if (cal.has("attention_extra_row_compute_efficiency")) {
    if (c.attention_compute_efficiency <= 0)
      cal.fail("attention_extra_row_compute_efficiency",
               "attention_compute_efficiency beside it (the rate of a head's first query row)", "none");
    c.attention_extra_row_compute_efficiency = cal.fraction("attention_extra_row_compute_efficiency");
  }
  // Optional: a later row's cost per score beyond its FLOPs, with the later rows' rate.
  if (cal.has("attention_extra_row_score_ns")) {
    if (c.attention_extra_row_compute_efficiency <= 0)
      cal.fail("attention_extra_row_score_ns",
               "attention_extra_row_compute_efficiency beside it (the FLOP rate of a head's later query rows)", "none");
    c.attention_extra_row_score_ns = cal.non_negative("attention_extra_row_score_ns");
  }
  return c;
}

class CpuKind : public DeviceKind {
 public:
  void load(const YamlReader& config, HardwareSpec& hw) const override { hw.cpu = load_cpu(config); }
  // FP32 SIMD.
  double peak_flops(const HardwareSpec& hw) const override { return hw.cpu->cores * hw.cpu->simd_flops_per_cycle * hw.cpu->clock_ghz * 1e9; }
  double peak_bandwidth_bytes(const HardwareSpec& hw) const override { return hw.cpu->dram_bandwidth_gbs * 1e9; }
  double memory_capacity_bytes(const HardwareSpec& hw) const override { return hw.cpu->memory_capacity_gib * kBytesPerGib; }
  bool host_processor() const override { return true; }
  // llama.cpp: the stack paper 003's CPU draft ran under.
  std::string default_stack() const override { return "llama-cpp"; }
  bool charges_software_stack() const override { return true; }
};

const DeviceKindRegistration cpu_kind_registration("cpu", std::make_unique<CpuKind>());

}  // namespace
}  // namespace models
