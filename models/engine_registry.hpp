#pragma once
// Self-registering latency engines (Ramulator 2 style): an engine implementation registers
// itself for an engine name ("roofline", "sim", "sim-clocked") and a device kind's name
// (models/device_kind.hpp) in its own .cpp file with one static EngineRegistration, so a new
// engine is one file plus one line. An engine registered for kAnyDeviceKind serves every kind
// that has none of that name (roofline/peak_roofline.cpp: a new kind is timed from its peaks). The sim and roofline libraries are linked whole-archive so that every
// registration's static initialiser reaches the executable (see CMakeLists.txt).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/latency_engine.hpp"

namespace models {

using EngineFactory = std::function<std::unique_ptr<LatencyEngine>(const HardwareSpec&)>;

// The device kind an engine registers under to serve every kind without its own engine of that name.
constexpr const char* kAnyDeviceKind = "*";

struct EngineRegistration {
  EngineRegistration(const std::string& engine, const std::string& device_kind, EngineFactory factory);
};

// The engine `engine` for `hw`'s kind; InputError naming the engine, kind and the available
// engines when there is none.
std::unique_ptr<LatencyEngine> make_engine(const std::string& engine, const HardwareSpec& hw);
// Registered engine names (sorted, unique).
std::vector<std::string> engine_names();
// Whether make_engine(engine, hw) would find one for a device of kind `device_kind`.
bool has_engine(const std::string& engine, const std::string& device_kind);

}  // namespace models
