#pragma once
// What the shipped device kinds' YAML loaders share (models/device_kinds/*_kind.cpp).
#include <limits>
#include <string>

#include "models/hardware_spec.hpp"
#include "models/yaml_reader.hpp"

namespace models::kind_parts {

// Counts of hardware units (channels, SMs, cores, tile sizes) are stored in int: a value past
// its range is an error naming the key, never a wrapped count.
constexpr long long kIntMax = std::numeric_limits<int>::max();

// `key` as an off-chip memory technology (hbm, ddr4, gddr6x, ddr5).
inline MemoryType memory_type(const YamlReader& r, const std::string& key) {
  const std::string v = r.one_of(key, {"hbm", "ddr4", "gddr6x", "ddr5"});
  if (v == "hbm") return MemoryType::hbm;
  if (v == "ddr4") return MemoryType::ddr4;
  if (v == "gddr6x") return MemoryType::gddr6x;
  return MemoryType::ddr5;
}

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

}  // namespace models::kind_parts
