#pragma once
// The SystemC module of the FPGA accelerator (fpga_accelerator.hpp runs it): its execution
// units as processes around the shared scoreboard, plus the two exact fast-forwards the memory
// controller consults.
//  - event-driven mode: the matrix engine, the SFU and the store port (in_order_units.cpp) and
//    the memory controller (memory_controller.cpp) are SC_METHODs;
//  - clocked mode: one SC_THREAD advances the whole accelerator cycle by cycle
//    (clocked_reference.cpp).
// Between programs every process waits for program_ready.
#include <systemc>

#include <memory>
#include <utility>
#include <vector>

#include "sim/fpga/accelerator/chunk_fast_forward.hpp"
#include "sim/fpga/accelerator/layer_fast_forward.hpp"
#include "sim/fpga/accelerator/scoreboard.hpp"

namespace sim::accelerator {

SC_MODULE(AcceleratorModule) {
  sc_core::sc_event program_ready;
  Scoreboard board;
  LayerFastForwarder layers;
  ChunkFastForwarder chunks;

  SC_HAS_PROCESS(AcceleratorModule);
  // The clocked reference's thread exists only in clocked mode: a thread's coroutine stack costs
  // page faults on every run (most of the FPGA model's in the regimes sweep), and the
  // event-driven units are methods without a stack.
  AcceleratorModule(sc_core::sc_module_name name, SimMode mode) : sc_core::sc_module(name) {
    SC_METHOD(matrix_engine);
    sensitive << program_ready;
    dont_initialize();
    SC_METHOD(special_function_unit);
    sensitive << program_ready;
    dont_initialize();
    SC_METHOD(memory_controller);
    sensitive << program_ready;
    dont_initialize();
    SC_METHOD(store_port);
    sensitive << program_ready;
    dont_initialize();
    if (mode == SimMode::clocked) SC_THREAD(clocked_reference);
  }

  // The queues, the layer structure and the op starts are prepared by the caller, outside the
  // SystemC lock. `repeating`: null where the chunk fast-forward is off.
  void load(const Program& p, SimMode m, std::unique_ptr<UnitQueues> q, const LayerStructure& layer_structure,
            std::vector<char> op_starts, const RepeatingRuns* repeating, bool times_wanted) {
    board.load(p, m, std::move(q), times_wanted);
    layers.load(layer_structure, std::move(op_starts));
    chunks.load(repeating, layer_structure.complete_from);
  }

  // --- event-driven units ---------------------------------------------------------------
  // Each unit is an SC_METHOD (no coroutine switch per instruction): on every activation it
  // retires the instruction that just finished, issues the next one if its dependencies are
  // done and re-arms itself for that instruction's last cycle, or else sleeps on the unit
  // that runs its first unfinished dependency.
  void matrix_engine();
  void special_function_unit();
  void store_port();
  void memory_controller();

  // --- clocked reference ----------------------------------------------------------------
  void clocked_reference();

 private:
  // k: the unit's queue (queue_index); slot: its entry in Scoreboard::waiting_on.
  template <int k, int slot, Unit unit>
  void in_order_unit(UnitState& st);
  // Issue the instruction at queue entry e on `unit`.
  void issue(UnitState& st, const InstructionQueue::Entry& e, Unit unit) {
    const long long cycles = board.program->instructions[e.index].cycles;
    board.begin(e.instruction, unit, cycles);
    st.busy = e.instruction;
    next_trigger(sc_core::sc_time::from_value(sc_core::sc_time::value_type(cycles) * cycle.value()));
  }
};

}  // namespace sim::accelerator
