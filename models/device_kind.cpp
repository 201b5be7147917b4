#include "models/device_kind.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <utility>

#include "models/config_error.hpp"
#include "models/registry.hpp"
#include "models/yaml_reader.hpp"

namespace models {

namespace {

// Kinds are never removed, so references handed out stay valid.
Registry<std::string, std::unique_ptr<const DeviceKind>>& kinds() {
  static Registry<std::string, std::unique_ptr<const DeviceKind>> r("device kinds");
  return r;
}

}  // namespace

DeviceKindRegistration::DeviceKindRegistration(const std::string& name, std::unique_ptr<const DeviceKind> kind) {
  kinds().add(name, std::move(kind));
}

// HardwareSpec (models/hardware_spec.hpp) is the data; what it says about a device and how it
// is read come from its kind, so they are defined here, above both, not in hardware_spec.cpp.
double HardwareSpec::peak_flops() const { return device_kind(kind, source_file).peak_flops(*this); }

bool HardwareSpec::concurrent_streams() const { return device_kind(kind, source_file).concurrent_streams(); }
bool HardwareSpec::runs_gpu_serving_stacks() const { return device_kind(kind, source_file).runs_gpu_serving_stacks(); }
bool HardwareSpec::host_processor() const { return device_kind(kind, source_file).host_processor(); }
std::string HardwareSpec::default_stack() const { return device_kind(kind, source_file).default_stack(); }
bool HardwareSpec::charges_software_stack() const { return device_kind(kind, source_file).charges_software_stack(); }

double HardwareSpec::peak_bandwidth_bytes() const {
  return device_kind(kind, source_file).peak_bandwidth_bytes(*this);
}

bool HardwareSpec::pcie_peer_to_peer() const {
  return device_kind(kind, source_file).pcie_peer_to_peer(*this);
}

double HardwareSpec::memory_capacity_bytes() const {
  return device_kind(kind, source_file).memory_capacity_bytes(*this);
}

HardwareSpec load_hardware(const std::string& path) { return load_hardware(YamlReader::open(path)); }

HardwareSpec load_hardware(const YamlReader& r) {
  HardwareSpec hw;
  hw.source_file = r.file();
  hw.name = r.string("name");
  hw.description = r.string_or("description", "");
  // The kind's own loader reads and validates the rest (models/device_kinds/).
  hw.kind = r.one_of("kind", device_kind_names());
  device_kind(hw.kind, r.file()).load(r, hw);
  hw.verify_includes_lm_head = r.boolean_or("verify_includes_lm_head", true);
  return hw;
}

const DeviceKind& device_kind(const std::string& name, const std::string& what) {
  const auto* kind = kinds().find(name);
  if (!kind) {
    std::string known;
    for (const auto& n : kinds().keys()) known += (known.empty() ? "" : ", ") + n;
    throw InputError(fmt::format("{}: device kind '{}' is not registered (available: {})", what, name,
                                 known.empty() ? "none" : known));
  }
  return **kind;
}

std::vector<std::string> device_kind_names() {
  return kinds().keys();
}

}  // namespace models
