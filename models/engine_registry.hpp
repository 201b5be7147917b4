#pragma once
// Self-registering latency engines (Ramulator 2 style): an engine implementation registers
// itself for an engine name ("roofline", "sim", "sim-clocked") and a hardware kind in its own
// .cpp file with one static EngineRegistration, so a new device kind or engine is one file plus
// one line. The sim and roofline libraries are linked whole-archive so that every
// registration's static initialiser reaches the executable (see CMakeLists.txt).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/latency_engine.hpp"

namespace models {

using EngineFactory = std::function<std::unique_ptr<LatencyEngine>(const HardwareSpec&)>;

struct EngineRegistration {
  EngineRegistration(const std::string& engine, HardwareKind kind, EngineFactory factory);
};

// The engine `engine` for `hw`'s kind; InputError naming the engine, kind and the available
// engines when there is none.
std::unique_ptr<LatencyEngine> make_engine(const std::string& engine, const HardwareSpec& hw);
// Registered engine names (sorted, unique).
std::vector<std::string> engine_names();
bool has_engine(const std::string& engine, HardwareKind kind);

}  // namespace models
