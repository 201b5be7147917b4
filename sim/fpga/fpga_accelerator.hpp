#pragma once
// SystemC model of the accelerator's execution units running an instruction Program: the
// memory controller (serving the weight, KV and store DMA queues over shared HBM channels),
// the matrix engine and the SFU.
//  - event-driven mode: each unit is an SC_METHOD that re-arms itself for exactly its
//    instruction's cycles and otherwise only wakes when the instruction it waits for finishes
//    (no per-cycle wake-ups);
//  - clocked mode: one process advances the whole accelerator cycle by cycle (reference).
// Programs run in SystemC contexts of their own (sim/sc_session.hpp), so one process can
// simulate any number of steps; the SystemC part of concurrent calls is serialised. In
// event-driven mode each thread keeps one accelerator and runs its programs one after another
// (built and elaborated once); the clocked reference builds one per program.
// The model's blocks, one per file, live in sim/fpga/accelerator/ (accelerator_module.hpp is
// the SC_MODULE that joins them); fpga_accelerator.cpp only prepares, runs and collects.
#include "sim/fpga/instruction_program.hpp"
#include "sim/sim_engine.hpp"

namespace sim {

// Exact layer fast-forward (event-driven mode only): at the first load of each op in a layer the
// model takes the state that decides the rest of the run (per queue the next instruction, per
// unit the instruction in flight and its remaining cycles, all relative to that load); when it
// equals the state at the same place of an earlier layer and the layers in between are copies
// (analyse_layers), the
// following periods replay it exactly, shifted by the period's cycles, so the model jumps over
// every whole period that the program still holds and simulates the remaining layers. Exact
// also fast-forwards inside ops: the repeating chunks of an op's weight stream (RepeatingRuns;
// accelerator/chunk_fast_forward.hpp). Off: every layer and chunk is simulated (tests
// compare the two with the direct scheduler, instruction by instruction).
enum class LayerFastForward { off, exact };

// every_instruction: the schedule holds each instruction's start and finish (a compact
// program's run cannot: it reports its total only); total_only: only total_cycles and the work
// counters, which spares writing the times of the instructions a fast-forward skips.
enum class ScheduleTimes { every_instruction, total_only };

Schedule run_on_systemc(const Program& program, SimMode mode, LayerFastForward ff = LayerFastForward::exact,
                        ScheduleTimes times = ScheduleTimes::every_instruction);

// What every run_on_systemc of this process has done so far: benchmarks report a sweep's
// simulation work with it, figures that, unlike wall times, do not depend on how busy the
// machine is.
struct FpgaSimulationWork {
  long long runs = 0;                    // programs run
  long long instructions = 0;            // in those programs, implicit layer copies included
  long long simulated_instructions = 0;  // issued one by one (Schedule::simulated_instructions)
};
FpgaSimulationWork fpga_simulation_work();

}  // namespace sim
