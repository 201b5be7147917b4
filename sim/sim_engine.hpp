#pragma once
// The `sim` latency engines: SystemC models of the hardware that produce integer cycle counts
// (FPGA) or simulated kernel timelines (GPU, CPU). `mode` selects the event-driven fast path
// or the clocked reference (cycle-by-cycle), which must agree on cycle counts.
#include <memory>
#include <string>

#include "models/latency_engine.hpp"

namespace sim {

enum class SimMode { event_driven, clocked };

// "sim" -> event-driven, "sim-clocked" -> clocked. Returns null for other engine names.
std::unique_ptr<models::LatencyEngine> make_sim_engine(const std::string& engine,
                                                      const models::HardwareSpec& hw);

std::unique_ptr<models::LatencyEngine> make_fpga_sim_engine(const models::HardwareSpec& hw, SimMode mode);
std::unique_ptr<models::LatencyEngine> make_gpu_sim_engine(const models::HardwareSpec& hw, SimMode mode);
std::unique_ptr<models::LatencyEngine> make_cpu_sim_engine(const models::HardwareSpec& hw, SimMode mode);

}  // namespace sim
