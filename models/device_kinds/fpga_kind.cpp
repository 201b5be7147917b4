// FPGA boards (FlightLLM-like accelerator, paper 000): FpgaSpec from configs/hardware/*.yaml with
// `kind: fpga`. Engines: roofline/fpga_roofline.cpp, sim/fpga/fpga_sim_engine.cpp.
#include <string>

#include "models/config_error.hpp"
#include "models/device_kind.hpp"
#include "models/device_kinds/kind_parts.hpp"

namespace models {
namespace {

using namespace kind_parts;

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
  m.allow_only({"type", "bandwidth_gbs", "capacity_gib", "channels", "burst_bytes", "tensor_mapping"});
  f.memory_type = memory_type(m, "type");
  f.bandwidth_gbs = m.positive("bandwidth_gbs");
  f.memory_capacity_gib = m.positive("capacity_gib");
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

class FpgaKind : public DeviceKind {
 public:
  void load(const YamlReader& config, HardwareSpec& hw) const override { hw.fpga = load_fpga(config); }
  // Dense 16-bit, MM mode.
  double peak_flops(const HardwareSpec& hw) const override { return 2.0 * hw.fpga->macs_per_cycle_mm() * hw.fpga->clock_mhz * 1e6; }
  double peak_bandwidth_bytes(const HardwareSpec& hw) const override { return hw.fpga->bandwidth_gbs * 1e9; }
  // The board's off-chip memory (memory.capacity_gib): what weights and KV caches must fit in.
  double memory_capacity_bytes(const HardwareSpec& hw) const override {
    return hw.fpga->memory_capacity_gib * kBytesPerGib;
  }
};

const DeviceKindRegistration fpga_kind_registration("fpga", std::make_unique<FpgaKind>());

}  // namespace
}  // namespace models
