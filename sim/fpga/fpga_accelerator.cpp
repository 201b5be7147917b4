#include "sim/fpga/fpga_accelerator.hpp"

#include <systemc>

#include "sim/sc_session.hpp"

#include <array>
#include <cstdlib>
#include <memory>
#include <mutex>

namespace sim {

namespace {

using sc_core::sc_time;
using sc_core::SC_NS;

// One cycle is one nanosecond of SystemC time; the board clock converts cycles to seconds.
const sc_time cycle(1, SC_NS);

SC_MODULE(Accelerator) {
  sc_core::sc_event program_ready;
  // One event per unit, notified when an instruction on that unit finishes: a waiting unit
  // sleeps on the unit that runs its first unfinished dependency (no spurious wake-ups).
  std::array<sc_core::sc_event, 3> finished_on;

  const Program* program = nullptr;
  std::unique_ptr<UnitQueues> queues;
  SimMode mode = SimMode::event_driven;
  Schedule schedule;
  std::vector<char> done;
  sc_time base;

  SC_CTOR(Accelerator) {
    SC_METHOD(matrix_engine);
    sensitive << program_ready;
    dont_initialize();
    SC_METHOD(special_function_unit);
    sensitive << program_ready;
    dont_initialize();
    SC_METHOD(memory_controller);
    sensitive << program_ready;
    dont_initialize();
    SC_THREAD(clocked_reference);
  }

  void load(const Program& p, SimMode m) {
    program = &p;
    queues = std::make_unique<UnitQueues>(p);
    mode = m;
    // assign() keeps the vectors' capacity: fresh ~MB buffers every run cost page faults.
    schedule.total_cycles = 0;
    schedule.start.assign(p.instructions.size(), 0);
    schedule.finish.assign(p.instructions.size(), 0);
    done.assign(p.instructions.size(), 0);
    running.fill(-1);
    matrix_state = sfu_state = memory_state = UnitState{};
    dma_head.fill(0);
  }

  bool deps_done(int i) const { return pending_dep(i) < 0; }
  int pending_dep(int i) const {
    for (int d : program->instructions[i].deps)
      if (!done[d]) return d;
    return -1;
  }
  sc_core::sc_event& finish_event_of(int i) { return finished_on[int(program->instructions[i].unit)]; }
  long long now() const { return static_cast<long long>((sc_core::sc_time_stamp() - base) / cycle); }
  std::array<int, 3> running{-1, -1, -1};  // instruction in flight per unit
  void begin(int i) {
    schedule.start[i] = now();
    running[int(program->instructions[i].unit)] = i;
  }
  // Whether another unit finishes an instruction in this very cycle (its finish may not be
  // recorded yet in this delta cycle).
  bool another_unit_finishing_now(Unit self) const {
    for (int u = 0; u < 3; ++u) {
      const int i = running[u];
      if (u != int(self) && i >= 0 && !done[i] &&
          schedule.start[i] + program->instructions[i].cycles == now())
        return true;
    }
    return false;
  }
  void end(int i) {
    schedule.finish[i] = now();
    schedule.total_cycles = std::max(schedule.total_cycles, schedule.finish[i]);
    done[i] = 1;
    running[int(program->instructions[i].unit)] = -1;
  }

  // --- event-driven units ---------------------------------------------------------------
  // Each unit is an SC_METHOD (no coroutine switch per instruction): on every activation it
  // retires the instruction that just finished, issues the next one if its dependencies are
  // done and re-arms itself for that instruction's last cycle, or else sleeps on the unit
  // that runs its first unfinished dependency. Between programs it waits for program_ready.
  struct UnitState {
    std::size_t head = 0;
    int busy = -1;
  };
  UnitState matrix_state, sfu_state, memory_state;
  sc_core::sc_event any_finished;  // wakes the memory controller when it has nothing ready
  std::array<std::size_t, dma_queue_count> dma_head{};

  long long cycles_of(int i) const { return program->instructions[i].cycles; }
  void retire(UnitState& st) {
    end(st.busy);
    finish_event_of(st.busy).notify(sc_core::SC_ZERO_TIME);
    any_finished.notify(sc_core::SC_ZERO_TIME);
    st.busy = -1;
  }
  void issue(UnitState& st, int i) {
    begin(i);
    st.busy = i;
    next_trigger(double(cycles_of(i)), SC_NS);
  }

  void in_order_unit(const std::vector<int>& q, UnitState& st) {
    if (mode != SimMode::event_driven) return;
    if (st.busy >= 0) retire(st);
    if (st.head >= q.size()) return;  // program done: back to waiting for program_ready
    const int i = q[st.head];
    const int d = pending_dep(i);
    if (d >= 0) {
      next_trigger(finish_event_of(d));
      return;
    }
    ++st.head;
    issue(st, i);
  }
  void matrix_engine() { in_order_unit(queues->matrix, matrix_state); }
  void special_function_unit() { in_order_unit(queues->sfu, sfu_state); }

  // Ready head of the DMA queues with the lowest program index, or -1.
  int pick_transfer(std::array<std::size_t, dma_queue_count>& head) const {
    int pick = -1;
    for (int k = 0; k < dma_queue_count; ++k)
      if (head[k] < queues->dma[k].size()) {
        const int i = queues->dma[k][head[k]];
        if (deps_done(i) && (pick < 0 || i < queues->dma[pick][head[pick]])) pick = k;
      }
    return pick;
  }

  void memory_controller() {
    if (mode != SimMode::event_driven) return;
    if (memory_state.busy >= 0) {
      retire(memory_state);
      // Choose only once every unit finishing in this cycle has recorded it: all finishes
      // happen in the first delta of their cycle.
      if (another_unit_finishing_now(Unit::memory)) {
        next_trigger(sc_core::SC_ZERO_TIME);
        return;
      }
    }
    bool remaining = false;
    for (int q = 0; q < dma_queue_count; ++q) remaining |= dma_head[q] < queues->dma[q].size();
    if (!remaining) return;
    const int k = pick_transfer(dma_head);
    if (k < 0) {
      // Sleep until some unit finishes an instruction (a queue head may then be ready).
      next_trigger(any_finished);
      return;
    }
    issue(memory_state, queues->dma[k][dma_head[k]++]);
  }

  // --- clocked reference ----------------------------------------------------------------
  void clocked_reference() {
    for (;;) {
      wait(program_ready);
      if (mode != SimMode::clocked) continue;
      struct Busy { int instr = -1; long long remaining = 0; };
      Busy matrix, sfu, memory;
      std::size_t head_matrix = 0, head_sfu = 0;
      std::array<std::size_t, dma_queue_count> head{};
      std::size_t retired = 0;
      const std::size_t total = program->instructions.size();
      for (;;) {
        for (Busy* b : {&matrix, &sfu, &memory})
          if (b->instr >= 0 && b->remaining == 0) {
            end(b->instr);
            b->instr = -1;
            ++retired;
          }
        if (retired == total) break;
        auto try_issue = [&](Busy& b, const std::vector<int>& q, std::size_t& h) {
          if (b.instr < 0 && h < q.size() && deps_done(q[h])) {
            b.instr = q[h++];
            b.remaining = program->instructions[b.instr].cycles;
            begin(b.instr);
          }
        };
        try_issue(matrix, queues->matrix, head_matrix);
        try_issue(sfu, queues->sfu, head_sfu);
        if (memory.instr < 0) {
          const int k = pick_transfer(head);
          if (k >= 0) try_issue(memory, queues->dma[k], head[k]);
        }
        wait(cycle);
        for (Busy* b : {&matrix, &sfu, &memory})
          if (b->instr >= 0) --b->remaining;
      }
    }
  }
};

}  // namespace

Schedule run_on_systemc(const Program& program, SimMode mode) {
  // A fresh SystemC context and accelerator per program (sim/sc_session.hpp): any number of
  // programs, boards and engines per process. The schedule's ~MB buffers are recycled across
  // runs (fresh buffers every run cost page faults); the session lock guards the scratch.
  ScSession session;
  static Schedule scratch;
  auto a = std::make_unique<Accelerator>("specdse_fpga_accelerator");
  a->schedule = std::move(scratch);
  a->load(program, mode);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborate; units park on program_ready
  a->base = sc_core::sc_time_stamp();
  a->program_ready.notify(sc_core::SC_ZERO_TIME);
  session.run();  // until every unit has retired its queue
  Schedule result = a->schedule;
  scratch = std::move(a->schedule);
  return result;
}

}  // namespace sim
