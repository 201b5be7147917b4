#include "sim/fpga/accelerator/state_snapshot.hpp"

namespace sim::accelerator {

StateSnapshot take_snapshot(const Scoreboard& board, long long t) {
  StateSnapshot s;
  std::array<int, queue_count> last{};  // per queue: the instruction before the (rolled-back) head, or -1
  for (int k = 0; k < queue_count; ++k) {
    const InstructionQueue& q = board.queue(k);
    std::size_t x = board.head(k);
    int before = x > 0 ? q[x - 1] : -1;
    if (before >= 0 && board.schedule.start[std::size_t(before)] == t) {  // issued at t: not yet issued
      s.head_instruction[std::size_t(k)] = before;
      --x;
      before = x > 0 ? q[x - 1] : -1;
    } else {
      s.head_instruction[std::size_t(k)] = x < q.size() ? board.queue_entry(k, x).instruction : -1;
    }
    s.heads[std::size_t(k)] = x;
    last[std::size_t(k)] = before;
  }
  auto last_issued = [&](int k) { return last[std::size_t(k)]; };
  std::size_t u = 0;
  for (int k = int(DmaQueue::store); k < queue_count; ++k) s.in_flight[u++] = last_issued(k);
  int last_transfer = -1;  // the memory controller's: the load queues' latest
  for (int k = 0; k < load_queue_count; ++k)
    if (const int i = last_issued(k); i >= 0)
      if (last_transfer < 0 || board.schedule.start[std::size_t(i)] > board.schedule.start[std::size_t(last_transfer)])
        last_transfer = i;
  s.in_flight[u] = last_transfer;
  for (int& i : s.in_flight)
    if (i >= 0 && board.end_of(i) < t) i = -1;
  return s;
}

}  // namespace sim::accelerator
