#include "sim/fpga/accelerator/period_jump.hpp"

#include <algorithm>

namespace sim::accelerator {

void skip_queue(Scoreboard& board, int k, std::size_t h, std::size_t count, std::size_t per_period,
                long long period_cycles, long long skipped_cycles) {
  const InstructionQueue& q = board.queue(k);
  Schedule& schedule = board.schedule;
  auto write = [&](std::size_t i, long long start) {
    schedule.start[i] = start;
    schedule.finish[i] = start + board.cycles_of(int(i));
    schedule.total_cycles = std::max(schedule.total_cycles, schedule.finish[i]);
  };
  if (board.every_time)
    for (std::size_t pos = h; pos < h + count; ++pos)
      write(std::size_t(q[pos]), schedule.start[std::size_t(q[pos - per_period])] + period_cycles);
  else if (count > 0 && h > 0)
    write(std::size_t(q[h + count - 1]), schedule.start[std::size_t(q[h - 1])] + skipped_cycles);
  board.head(k) += count;
}

void shift_units(Scoreboard& board, long long shift, long long skipped_cycles) {
  Schedule& schedule = board.schedule;
  for (UnitState* st : {&board.matrix_state, &board.sfu_state, &board.memory_state, &board.store_state}) {
    if (st->busy < 0) continue;
    const int from = st->busy, to = int(from + shift);
    schedule.finish[std::size_t(from)] = board.end_of(from);
    schedule.start[std::size_t(to)] = schedule.start[std::size_t(from)] + skipped_cycles;
    st->busy = to;
    board.running[int(board.unit_of(to))] = to;
    board.ends_at[int(board.unit_of(to))] = board.end_of(to);
  }
  for (int u = 0; u < 3; ++u)
    if (board.waiting_on[std::size_t(u)] >= 0) {
      board.waiting_on[std::size_t(u)] = -1;
      board.wake[std::size_t(Scoreboard::slot_unit(u))].notify(sc_core::SC_ZERO_TIME);
    }
  board.offset += skipped_cycles;
  board.forget_waits();  // the units' instructions moved: what each head waited for is stale
}

}  // namespace sim::accelerator
