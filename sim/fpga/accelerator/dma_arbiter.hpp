#pragma once
// The memory controller's arbitration between the load queues (weights, KV, scores): it serves
// the ready head with the lowest program index. The event-driven controller and the clocked
// reference share it, so both issue the same transfer in the same state.
#include <array>
#include <cstddef>

#include "sim/fpga/accelerator/scoreboard.hpp"

namespace sim::accelerator {

// Ready head of the load queues with the lowest program index, or -1; `pending` (if given)
// receives each head's first unfinished dependency (-1: ready, or the queue is empty).
inline int pick_transfer(const Scoreboard& board, const std::size_t* head,
                         std::array<int, dma_queue_count>* pending = nullptr) {
  int pick = -1, pick_index = 0;
  for (int k = 0; k < load_queue_count; ++k) {
    int d = -1;
    if (head[k] < board.queues->dma[k].size()) {
      const InstructionQueue::Entry e = board.queue_entry(k, head[k]);
      d = board.head_pending_dep(k, head[k], e);
      if (d < 0 && (pick < 0 || e.instruction < pick_index)) pick = k, pick_index = e.instruction;
    }
    if (pending) (*pending)[std::size_t(k)] = d;
  }
  return pick;
}

}  // namespace sim::accelerator
