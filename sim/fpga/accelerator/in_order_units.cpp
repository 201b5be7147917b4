// The units that issue their queue strictly in program order: the matrix engine, the SFU and
// the store port (event-driven mode; accelerator_module.hpp).
#include "sim/fpga/accelerator/accelerator_module.hpp"

namespace sim::accelerator {

// A template: each unit's process gets its own copy with its queue, slot and unit as constants
// (one shared copy with them as arguments cost about a fifth more instructions per issue).
template <int k, int slot, Unit unit>
void AcceleratorModule::in_order_unit(UnitState& st) {
  if (board.mode != SimMode::event_driven) return;
  if (st.busy >= 0) board.retire(st, unit);
  std::size_t& head = board.heads[std::size_t(k)];
  if (head >= board.queue(k).size()) return;  // program done: back to waiting for program_ready
  const InstructionQueue::Entry e = board.queue_entry(k, head);
  const int d = board.head_pending_dep(k, head, e);
  if (d >= 0) {
    board.waiting_on[std::size_t(slot)] = d;
    next_trigger(board.wake[int(unit)]);
    return;
  }
  ++head;
  issue(st, e, unit);
}

void AcceleratorModule::matrix_engine() { in_order_unit<dma_queue_count, 0, Unit::matrix>(board.matrix_state); }
void AcceleratorModule::special_function_unit() { in_order_unit<dma_queue_count + 1, 1, Unit::sfu>(board.sfu_state); }
void AcceleratorModule::store_port() { in_order_unit<int(DmaQueue::store), 2, Unit::store>(board.store_state); }

}  // namespace sim::accelerator
