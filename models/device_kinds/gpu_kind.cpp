// GPUs: GpuSpec from configs/hardware/*.yaml with `kind: gpu`. Engines: roofline/gpu_roofline.cpp,
// sim/gpu/gpu_sim_engine.cpp.
#include <fmt/format.h>

#include "models/config_error.hpp"
#include "models/device_kind.hpp"
#include "models/device_kinds/kind_parts.hpp"

namespace models {
namespace {

using namespace kind_parts;

GpuSpec load_gpu(const YamlReader& r) {
  GpuSpec g;
  r.allow_only({"name", "kind", "description", "verify_includes_lm_head", "sms", "clock_mhz", "tensor_tflops_fp16",
                "l2_mib", "memory", "calibration", "kernels", "sm", "pcie_peer_to_peer"});
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
  // Read last: a config that predates the key fails on any older retired key first.
  g.pcie_peer_to_peer = r.boolean("pcie_peer_to_peer");
  return g;
}

class GpuKind : public DeviceKind {
 public:
  void load(const YamlReader& config, HardwareSpec& hw) const override { hw.gpu = load_gpu(config); }
  // Dense FP16/BF16 tensor cores.
  double peak_flops(const HardwareSpec& hw) const override { return hw.gpu->tensor_tflops_fp16 * 1e12; }
  double peak_bandwidth_bytes(const HardwareSpec& hw) const override { return hw.gpu->memory_bandwidth_gbs * 1e9; }
  double memory_capacity_bytes(const HardwareSpec& hw) const override { return hw.gpu->memory_capacity_gib * kBytesPerGib; }
  bool pcie_peer_to_peer(const HardwareSpec& hw) const override { return hw.gpu->pcie_peer_to_peer; }
  bool concurrent_streams() const override { return true; }
  bool runs_gpu_serving_stacks() const override { return true; }
  // vLLM's CUDA-graph engine: the stack a GPU serves models under unless told otherwise.
  std::string default_stack() const override { return "vllm-cuda-graph"; }
  bool charges_software_stack() const override { return true; }
};

const DeviceKindRegistration gpu_kind_registration("gpu", std::make_unique<GpuKind>());

}  // namespace
}  // namespace models
