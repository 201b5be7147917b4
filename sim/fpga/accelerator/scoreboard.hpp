#pragma once
// The state the FPGA accelerator's units share while they run one Program: per queue the next
// instruction to issue, per unit the instruction in flight and when it ends, which instruction
// each sleeping unit waits for (with the events that wake it), the schedule's times and the
// cycle clock. It answers the issue rule's question (are an instruction's dependencies done?)
// for the event-driven units, the clocked reference and the fast-forwards alike. Everything
// here runs once or more per instruction, so it stays in the header, inlined into its callers.
#include <systemc>

#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "sim/fpga/instruction_program.hpp"
#include "sim/sim_engine.hpp"

namespace sim::accelerator {

// One cycle is one nanosecond of SystemC time; the board clock converts cycles to seconds.
inline const sc_core::sc_time cycle(1, sc_core::SC_NS);

// Queues 0 to dma_queue_count - 1 are the DMA queues, then the matrix engine's, then the
// SFU's (queue_index and LayerStructure's order).
inline constexpr int queue_count = dma_queue_count + 2;

// The instruction an event-driven unit runs (-1: idle).
struct UnitState {
  int busy = -1;
};

struct Scoreboard {
  // One wake-up event per unit. A unit that cannot issue names the instruction it waits for
  // (waiting_on; the memory controller one per DMA queue head) and sleeps on its event, which
  // the retire of that very instruction notifies: no unit wakes for a finish it does not need.
  std::array<sc_core::sc_event, unit_count> wake;
  std::array<int, 3> waiting_on{-1, -1, -1};             // matrix engine, SFU, store port
  std::array<int, dma_queue_count> memory_waiting_on{};  // per DMA queue head (-1: none)

  const Program* program = nullptr;
  std::unique_ptr<UnitQueues> queues;
  SimMode mode = SimMode::event_driven;
  Schedule schedule;
  std::vector<char> done;
  sc_core::sc_time base;
  // Cycles that fast-forwards skipped (now() adds them).
  long long offset = 0;
  // Whether every instruction gets its times (ScheduleTimes::every_instruction, and only for a
  // full program). Else the skipped instructions get none but the last of each queue (nothing
  // else reads them).
  bool every_time = true;

  // --- the event-driven units' state ------------------------------------------------------
  UnitState matrix_state, sfu_state, memory_state, store_state;
  // Next position to issue in each queue (queue_index order: the DMA queues, matrix, SFU).
  std::array<std::size_t, queue_count> heads{};
  std::array<std::size_t, queue_count> per_copy{};  // UnitQueues::per_copy, at hand
  std::array<int, unit_count> running{-1, -1, -1, -1};  // instruction in flight per unit
  std::array<long long, unit_count> ends_at{};              // its last cycle + 1 (its finish)

  // The queues are prepared by the caller, outside the SystemC lock.
  void load(const Program& p, SimMode m, std::unique_ptr<UnitQueues> q, bool times_wanted) {
    program = &p;
    every_time = times_wanted && !p.compact();
    queues = std::move(q);
    mode = m;
    offset = 0;
    schedule.fast_forwarded_layers = 0;
    schedule.fast_forwarded_chunk_instructions = 0;
    schedule.chunk_jumps = 0;
    schedule.simulated_instructions = 0;
    // assign() keeps the vectors' capacity: fresh ~MB buffers every run cost page faults.
    schedule.total_cycles = 0;
    // The buffers only grow (steps of 1 and 32 layers alternate; they hold at least p.size()
    // times). A run that reports only its total reads a time only after writing it, so its part
    // is not cleared; otherwise it is, and is returned.
    if (schedule.start.size() < p.size()) schedule.start.resize(p.size());
    if (schedule.finish.size() < p.size()) schedule.finish.resize(p.size());
    if (every_time) {
      std::fill_n(schedule.start.begin(), p.size(), 0);
      std::fill_n(schedule.finish.begin(), p.size(), 0);
    }
    // The event-driven units know what is done from the queue heads (is_done); the clocked
    // reference keeps a flag per instruction.
    done.assign(m == SimMode::clocked ? p.size() : 0, 0);
    running.fill(-1);
    waiting_on.fill(-1);
    memory_waiting_on.fill(-1);
    matrix_state = sfu_state = memory_state = store_state = UnitState{};
    heads.fill(0);
    for (int k = 0; k < queue_count; ++k) per_copy[std::size_t(k)] = queues->per_copy(k);
    head_cache.fill(HeadCache{});
    forget_waits();
  }

  // The stored instruction behind index i (implicit copies of a compact program share it).
  const Instruction& stored(int i) const { return program->instructions[program->source(std::size_t(i)).index]; }
  Unit unit_of(int i) const { return stored(i).unit; }
  long long cycles_of(int i) const { return stored(i).cycles; }
  const InstructionQueue& queue(int k) const { return queues->queue(k); }
  std::size_t& head(int k) { return heads[std::size_t(k)]; }
  std::size_t head(int k) const { return heads[std::size_t(k)]; }
  long long end_of(int i) const { return schedule.start[std::size_t(i)] + cycles_of(i); }

  // An instruction is done once its unit has retired it: event-driven, when its queue's head
  // has passed it and it is not the one its unit still runs (this holds for the instructions a
  // fast-forward skipped too, without writing a flag for each).
  // `s`: the source of instruction d (Program::source).
  bool is_done(int d, const Program::Source& s) const {
    if (mode == SimMode::clocked) return done[std::size_t(d)] != 0;
    const UnitQueues::Slot& slot = queues->slot(s.index);
    const std::size_t position = std::size_t(slot.position) + s.copy * per_copy[std::size_t(slot.queue)];
    return position < heads[std::size_t(slot.queue)] && running[std::size_t(slot.unit)] != d;
  }
  bool deps_done(int i) const { return pending_dep(i) < 0; }
  int pending_dep(int i) const { return pending_dep(program->source(std::size_t(i))); }
  // The first unfinished dependency of the instruction with source s, or -1 (and its source).
  int pending_dep(const Program::Source& s, Program::Source* dep_source = nullptr) const {
    for (int d : program->instructions[s.index].deps) {
      const long long i = program->dependency_index(d, s);  // -1: before the program's start
      if (i < 0) continue;
      const Program::Source ds = program->dependency_source(d, s);
      if (!is_done(int(i), ds)) {
        if (dep_source) *dep_source = ds;
        return int(i);
      }
    }
    return -1;
  }
  // pending_dep of queue k's entry e at position pos, remembered per queue: the units ask for
  // their heads' at every activation, and a head mostly waits for the same instruction as at
  // the last. Instructions only ever finish, so a head found ready stays ready, and one found
  // waiting for d waits for d (every earlier dependency done) until d is done. A fast-forward
  // jump moves the units' instructions, so it forgets them all (forget_waits).
  int head_pending_dep(int k, std::size_t pos, const InstructionQueue::Entry& e) const {
    WaitCache& c = wait_cache[std::size_t(k)];
    if (c.pos == pos && (c.dep < 0 || !is_done(c.dep, c.dep_source))) return c.dep;
    c.pos = pos;
    c.dep = pending_dep({e.index, e.copy}, &c.dep_source);
    return c.dep;
  }
  void forget_waits() const { wait_cache.fill(WaitCache{}); }
  struct WaitCache {
    std::size_t pos = std::size_t(-1);
    int dep = -1;
    Program::Source dep_source{};
  };
  mutable std::array<WaitCache, queue_count> wait_cache{};
  // The instruction at queue k's position pos, with its source: the event-driven units ask for
  // their queue heads at every activation, so the last answer per queue is kept.
  InstructionQueue::Entry queue_entry(int k, std::size_t pos) const {
    HeadCache& c = head_cache[std::size_t(k)];
    if (c.pos != pos) {
      c.entry = queue(k).entry(pos);
      c.pos = pos;
    }
    return c.entry;
  }
  struct HeadCache {
    std::size_t pos = std::size_t(-1);
    InstructionQueue::Entry entry{};
  };
  mutable std::array<HeadCache, queue_count> head_cache{};

  // Cycles since the program started; `offset` adds the cycles that fast-forwards skipped.
  long long now() const {
    return static_cast<long long>((sc_core::sc_time_stamp() - base).value() / cycle.value()) + offset;
  }
  void begin(int i) { begin(i, unit_of(i), cycles_of(i)); }
  // The event-driven units know the instruction's unit and cycles from their queue entry.
  void begin(int i, Unit unit, long long cycles) {
    ++schedule.simulated_instructions;
    const long long t = now();
    schedule.start[i] = t;
    running[int(unit)] = i;
    ends_at[int(unit)] = t + cycles;
  }
  // Whether another unit finishes an instruction in this very cycle (its finish may not be
  // recorded yet in this delta cycle).
  bool another_unit_finishing_now(Unit self) const {
    const long long t = now();
    for (int u = 0; u < unit_count; ++u)
      if (u != int(self) && running[std::size_t(u)] >= 0 && ends_at[std::size_t(u)] == t) return true;
    return false;
  }
  void end(int i) { end(i, unit_of(i)); }
  void end(int i, Unit unit) {
    schedule.finish[i] = now();
    schedule.total_cycles = std::max(schedule.total_cycles, schedule.finish[i]);
    if (mode == SimMode::clocked) done[i] = 1;
    running[int(unit)] = -1;
  }

  // slot: 0 matrix engine, 1 SFU, 2 store port.
  static int slot_unit(int slot) {
    return slot == 0 ? int(Unit::matrix) : slot == 1 ? int(Unit::sfu) : int(Unit::store);
  }
  // The event-driven unit `unit` retires the instruction it ran.
  void retire(UnitState& st, Unit unit) {
    const int i = st.busy;
    end(i, unit);
    st.busy = -1;
    // Wake whoever waits for this instruction; it runs in the next delta cycle, after every
    // unit finishing in this cycle has retired (all finishes happen in the cycle's first delta).
    for (int u = 0; u < 3; ++u)
      if (waiting_on[std::size_t(u)] == i) {
        waiting_on[std::size_t(u)] = -1;
        wake[std::size_t(slot_unit(u))].notify(sc_core::SC_ZERO_TIME);
      }
    for (int w : memory_waiting_on)
      if (w == i) {
        memory_waiting_on.fill(-1);
        wake[int(Unit::memory)].notify(sc_core::SC_ZERO_TIME);
        break;
      }
  }
};

}  // namespace sim::accelerator
