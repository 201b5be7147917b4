#include "models/hardware_spec.hpp"

// HardwareSpec's peaks and load_hardware depend on the registered device kind, so they are
// defined one layer up, in models/device_kind.cpp; this file includes nothing of the kinds.

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

}  // namespace models
