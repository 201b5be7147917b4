// The clocked reference (SimMode::clocked; accelerator_module.hpp): one SC_THREAD advances the
// whole accelerator cycle by cycle, retiring and issuing on every unit each cycle, with no
// fast-forward. Tests compare the event-driven units with it.
#include "sim/fpga/accelerator/accelerator_module.hpp"
#include "sim/fpga/accelerator/dma_arbiter.hpp"

namespace sim::accelerator {

void AcceleratorModule::clocked_reference() {
  for (;;) {
    wait(program_ready);  // the thread exists only in clocked mode (the module's constructor)
    struct Busy { int instr = -1; long long remaining = 0; };
    Busy matrix, sfu, memory, store;
    std::size_t head_matrix = 0, head_sfu = 0;
    std::array<std::size_t, dma_queue_count> head{};
    std::size_t retired = 0;
    const std::size_t total = board.program->size();
    const UnitQueues& queues = *board.queues;
    for (;;) {
      for (Busy* b : {&matrix, &sfu, &memory, &store})
        if (b->instr >= 0 && b->remaining == 0) {
          board.end(b->instr);
          b->instr = -1;
          ++retired;
        }
      if (retired == total) break;
      auto try_issue = [&](Busy& b, const InstructionQueue& q, std::size_t& h) {
        if (b.instr < 0 && h < q.size() && board.deps_done(q[h])) {
          b.instr = q[h++];
          b.remaining = board.cycles_of(b.instr);
          board.begin(b.instr);
        }
      };
      try_issue(matrix, queues.matrix, head_matrix);
      try_issue(sfu, queues.sfu, head_sfu);
      try_issue(store, queues.dma[int(DmaQueue::store)], head[int(DmaQueue::store)]);
      if (memory.instr < 0) {
        const int k = pick_transfer(board, head.data());
        if (k >= 0) try_issue(memory, queues.dma[k], head[k]);
      }
      wait(cycle);
      for (Busy* b : {&matrix, &sfu, &memory, &store})
        if (b->instr >= 0) --b->remaining;
    }
  }
}

}  // namespace sim::accelerator
