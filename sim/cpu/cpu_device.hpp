#pragma once
// The CPU as a SystemC model: cores (sim/cpu/cpu_core_model.hpp) sharing one DRAM controller
// (sim/cpu/cpu_dram_controller.hpp) run a list of parallel regions back to back (a framework
// like llama.cpp joins its threads after every op). Each region: fork/join overhead, then the
// items dealt to the cores; it ends when its last core finishes.
//
// Event-driven mode: one SC_METHOD re-arms itself for the next core to finish (computed from
// the cores' rates) and re-shares the bandwidth there; no per-cycle wake-ups. Clocked mode: one
// SC_THREAD advances every cycle and checks every core. Both report integer core cycles.
#include <vector>

#include "roofline/cpu_roofline.hpp"
#include "sim/sim_engine.hpp"

namespace sim {

// Cycles of each region (overhead included), each run in the same fresh SystemC context.
std::vector<long long> simulate_cpu_regions(const std::vector<roofline::CpuKernel>& regions, SimMode mode);

}  // namespace sim
