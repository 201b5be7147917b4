#pragma once
// SystemC model of the accelerator's execution units (SYNC/scheduler, load DMA, matrix engine,
// SFU, store DMA) running an instruction Program.
//  - event-driven mode: each unit is an SC_THREAD that waits exactly its instruction's cycles
//    and is woken only when an instruction finishes (no per-cycle wake-ups);
//  - clocked mode: one process advances the whole accelerator cycle by cycle, retiring and
//    issuing instructions every cycle (the slow reference).
// One elaboration serves every board and program (durations come with the program), so a
// process can simulate any number of steps; calls are serialised (SystemC is single-threaded).
#include "sim/instruction_program.hpp"
#include "sim/sim_engine.hpp"

namespace sim {

Schedule run_on_systemc(const Program& program, SimMode mode);

}  // namespace sim
