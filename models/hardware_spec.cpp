#include "models/hardware_spec.hpp"

#include "models/device_kind.hpp"
#include "models/yaml_reader.hpp"

namespace models {

std::string to_string(MemoryType type) {
  switch (type) {
    case MemoryType::hbm: return "hbm";
    case MemoryType::ddr4: return "ddr4";
    case MemoryType::gddr6x: return "gddr6x";
    case MemoryType::ddr5: return "ddr5";
  }
  return "?";
}

double HardwareSpec::peak_flops() const { return device_kind(kind, source_file).peak_flops(*this); }

double HardwareSpec::peak_bandwidth_bytes() const {
  return device_kind(kind, source_file).peak_bandwidth_bytes(*this);
}

double HardwareSpec::memory_capacity_bytes() const {
  return device_kind(kind, source_file).memory_capacity_bytes(*this);
}

HardwareSpec load_hardware(const std::string& path) {
  const YamlReader r = YamlReader::open(path);
  HardwareSpec hw;
  hw.source_file = path;
  hw.name = r.string("name");
  hw.description = r.string_or("description", "");
  // The kind's own loader reads and validates the rest (models/device_kinds/).
  hw.kind = r.one_of("kind", device_kind_names());
  device_kind(hw.kind, r.file()).load(r, hw);
  hw.verify_includes_lm_head = r.boolean_or("verify_includes_lm_head", true);
  return hw;
}

}  // namespace models
