#pragma once
// SystemC model of the accelerator's execution units running an instruction Program: the
// memory controller (serving the weight, KV and store DMA queues over shared HBM channels),
// the matrix engine and the SFU.
//  - event-driven mode: each unit is an SC_THREAD that sleeps exactly its instruction's cycles
//    and otherwise only wakes when some instruction finishes (no per-cycle wake-ups);
//  - clocked mode: one process advances the whole accelerator cycle by cycle (reference).
// Each program runs in its own SystemC context (sim/sc_session.hpp), so one process can
// simulate any number of steps; the SystemC part of concurrent calls is serialised.
#include "sim/fpga/instruction_program.hpp"
#include "sim/sim_engine.hpp"

namespace sim {

Schedule run_on_systemc(const Program& program, SimMode mode);

}  // namespace sim
