#pragma once
// Self-registering device kinds (Ramulator 2 style, as models/engine_registry.hpp and
// models/drafts/draft_builder.hpp): a kind (`kind:` in configs/hardware/*.yaml: fpga, gpu, cpu)
// reads and validates its own YAML keys and states its peak compute, bandwidth and memory, in
// its own file under models/device_kinds/ with one static DeviceKindRegistration. Its latency
// engines register under the kind's name (models::EngineRegistration); a kind that registers
// no "roofline" engine is timed by the peak roofline (roofline/peak_roofline.cpp) from its
// peaks. A new kind is therefore one file, one registration line and one YAML; the models
// library is linked whole-archive so the registration survives.
#include <memory>
#include <string>
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/yaml_reader.hpp"

namespace models {

class DeviceKind {
 public:
  virtual ~DeviceKind() = default;
  // Reads this kind's keys of a hardware YAML into `hw` (its parameter block: hw.fpga, hw.gpu,
  // hw.cpu or hw.kind_parameters). load_hardware has read name, kind, description and
  // verify_includes_lm_head; the kind must still allow them in its allow_only list.
  virtual void load(const YamlReader& config, HardwareSpec& hw) const = 0;
  virtual double peak_flops(const HardwareSpec& hw) const = 0;             // FLOP/s
  virtual double peak_bandwidth_bytes(const HardwareSpec& hw) const = 0;   // off-chip bytes/s
  // Device memory in bytes; 0 when the config does not state it (the memory fit is then not checked).
  virtual double memory_capacity_bytes(const HardwareSpec& hw) const = 0;
  // Whether two such devices address each other's memory over PCIe (CUDA peer access). Kinds
  // without device peer access (CPUs, the FPGA accelerator here) keep the default.
  virtual bool pcie_peer_to_peer(const HardwareSpec&) const { return false; }

  // Capabilities the scenarios and plan ask about, so that none compares kind names:
  // co-located work (a draft beside its target) runs as concurrent CUDA streams in the
  // multi-stream GPU model (sim/gpu/gpu_streams.hpp); otherwise it is served one after another.
  virtual bool concurrent_streams() const { return false; }
  // The device runs a GPU serving stack's launch plan (CUDA graphs or eager PyTorch kernels):
  // what the EAGLE dispatcher costs.
  virtual bool runs_gpu_serving_stacks() const { return false; }
  // A general-purpose host processor: a draft model can run on it beside a target on another
  // device (DuoDecoding's draft, chain SD's CPU placement).
  virtual bool host_processor() const { return false; }
  // The software stack a device of this kind runs when none is named (`--stack auto`): a
  // configs/stacks name; empty: none (the kernels alone).
  virtual std::string default_stack() const { return ""; }
  // Its engines charge a software stack's host work (launches, per-layer and per-step costs):
  // a stack named for a kind that does not (an FPGA's accelerator runs no host framework) would
  // be ignored.
  virtual bool charges_software_stack() const { return false; }
};

struct DeviceKindRegistration {
  DeviceKindRegistration(const std::string& name, std::unique_ptr<const DeviceKind> kind);
};

// The kind named `name`; InputError naming `what` (the file and key asking) and the registered
// kinds when there is none.
const DeviceKind& device_kind(const std::string& name, const std::string& what);
// Registered kind names (sorted).
std::vector<std::string> device_kind_names();

}  // namespace models
