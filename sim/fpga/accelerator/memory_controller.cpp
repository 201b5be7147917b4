// The memory controller (event-driven mode; accelerator_module.hpp): it serves the load queues
// (weights, KV, scores) over the shared HBM channels, one transfer at a time, choosing among
// the ready heads (dma_arbiter.hpp). Before it issues a load it lets the layer and the chunk
// fast-forward jump over repeating periods.
#include "sim/fpga/accelerator/accelerator_module.hpp"
#include "sim/fpga/accelerator/dma_arbiter.hpp"

namespace sim::accelerator {

void AcceleratorModule::memory_controller() {
  if (board.mode != SimMode::event_driven) return;
  if (board.memory_state.busy >= 0) {
    board.retire(board.memory_state, Unit::memory);
    // Choose only once every unit finishing in this cycle has recorded it: all finishes
    // happen in the first delta of their cycle.
    if (board.another_unit_finishing_now(Unit::memory)) {
      next_trigger(sc_core::SC_ZERO_TIME);
      return;
    }
  }
  bool remaining = false;
  for (int q = 0; q < load_queue_count; ++q) remaining |= board.heads[std::size_t(q)] < board.queues->dma[q].size();
  if (!remaining) return;
  std::array<int, dma_queue_count> pending;
  pending.fill(-1);  // the store queue's entry is never set by pick_transfer
  int k = pick_transfer(board, board.heads.data(), &pending);
  if (k >= 0 && layers.armed() && layers.jump_at_load(board, board.queue_entry(k, board.heads[std::size_t(k)])))
    k = pick_transfer(board, board.heads.data(), &pending);
  if (k >= 0 && chunks.armed() && chunks.jump_at_load(board, board.queue_entry(k, board.heads[std::size_t(k)])))
    k = pick_transfer(board, board.heads.data(), &pending);
  if (k < 0) {
    // Sleep until a queue head's first unfinished dependency finishes (the head may then be
    // ready; if it still waits for another, the controller names that one and sleeps again).
    board.memory_waiting_on = pending;
    next_trigger(board.wake[int(Unit::memory)]);
    return;
  }
  const InstructionQueue::Entry e = board.queue_entry(k, board.heads[std::size_t(k)]);
  ++board.heads[std::size_t(k)];
  issue(board.memory_state, e, Unit::memory);
}

}  // namespace sim::accelerator
