// Placeholder entry points until the GPU and CPU SystemC models land (issue 4): they refuse
// with a clear message instead of returning numbers. Delete this file when they exist.
#include <fmt/format.h>

#include "models/config_error.hpp"
#include "sim/sim_engine.hpp"

namespace sim {

std::unique_ptr<models::LatencyEngine> make_gpu_sim_engine(const models::HardwareSpec& hw, SimMode) {
  throw models::InputError(fmt::format("--engine sim: no GPU model yet for '{}'; use --engine roofline", hw.name));
}

std::unique_ptr<models::LatencyEngine> make_cpu_sim_engine(const models::HardwareSpec& hw, SimMode) {
  throw models::InputError(fmt::format("--engine sim: no CPU model yet for '{}'; use --engine roofline", hw.name));
}

}  // namespace sim
