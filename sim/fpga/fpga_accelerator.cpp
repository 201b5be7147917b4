#include "sim/fpga/fpga_accelerator.hpp"

#include <systemc>

#include "sim/sc_session.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

namespace sim {

namespace {

// The work of every run_on_systemc of this process (fpga_simulation_work).
struct WorkCounters {
  std::atomic<long long> runs{0}, instructions{0}, simulated{0};
};
WorkCounters& work_counters() {
  static WorkCounters counters;
  return counters;
}

using sc_core::sc_time;
using sc_core::SC_NS;

// One cycle is one nanosecond of SystemC time; the board clock converts cycles to seconds.
const sc_time cycle(1, SC_NS);

SC_MODULE(Accelerator) {
  // Queues 0 to dma_queue_count - 1 are the DMA queues, then the matrix engine's, then the
  // SFU's (queue_index and LayerStructure's order).
  static constexpr int queue_count = dma_queue_count + 2;
  sc_core::sc_event program_ready;
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
    SC_METHOD(store_port);
    sensitive << program_ready;
    dont_initialize();
    SC_THREAD(clocked_reference);
  }

  // The queues and the layer structure are prepared by the caller, outside the SystemC lock.
  void load(const Program& p, SimMode m, std::unique_ptr<UnitQueues> q, const LayerStructure& layers,
            const RepeatingRuns* repeating, bool times_wanted) {
    program = &p;
    every_time = times_wanted && !p.compact();
    queues = std::move(q);
    mode = m;
    offset = 0;
    seen.clear();
    jumped = false;
    structure = layers;
    runs = repeating;
    restart_chunk_keys();
    chunk_run_begin = -1;
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
  }

  // The stored instruction behind index i (implicit copies of a compact program share it).
  const Instruction& stored(int i) const { return program->instructions[program->source(std::size_t(i)).index]; }
  Unit unit_of(int i) const { return stored(i).unit; }
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
  // The first unfinished dependency of the instruction with source s, or -1.
  int pending_dep(const Program::Source& s) const {
    for (int d : program->instructions[s.index].deps) {
      const long long i = program->dependency_index(d, s);  // -1: before the program's start
      if (i >= 0 && !is_done(int(i), program->dependency_source(d, s))) return int(i);
    }
    return -1;
  }
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
  mutable std::array<HeadCache, dma_queue_count + 2> head_cache{};
  // Cycles since the program started; `offset` adds the cycles that fast-forwards skipped.
  long long now() const {
    return static_cast<long long>((sc_core::sc_time_stamp() - base).value() / cycle.value()) + offset;
  }
  std::array<int, unit_count> running{-1, -1, -1, -1};  // instruction in flight per unit
  std::array<long long, unit_count> ends_at{};              // its last cycle + 1 (its finish)
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

  // --- event-driven units ---------------------------------------------------------------
  // Each unit is an SC_METHOD (no coroutine switch per instruction): on every activation it
  // retires the instruction that just finished, issues the next one if its dependencies are
  // done and re-arms itself for that instruction's last cycle, or else sleeps on the unit
  // that runs its first unfinished dependency. Between programs it waits for program_ready.
  struct UnitState {
    int busy = -1;
  };
  UnitState matrix_state, sfu_state, memory_state, store_state;
  // Next position to issue in each queue (queue_index order: the DMA queues, matrix, SFU).
  std::array<std::size_t, queue_count> heads{};
  std::array<std::size_t, queue_count> per_copy{};  // UnitQueues::per_copy, at hand

  long long cycles_of(int i) const { return stored(i).cycles; }
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
  // Issue the instruction at queue entry e on `unit`.
  void issue(UnitState& st, const InstructionQueue::Entry& e, Unit unit) {
    const long long cycles = program->instructions[e.index].cycles;
    begin(e.instruction, unit, cycles);
    st.busy = e.instruction;
    next_trigger(sc_time::from_value(sc_time::value_type(cycles) * cycle.value()));
  }

  // slot: 0 matrix engine, 1 SFU, 2 store port.
  static int slot_unit(int slot) {
    return slot == 0 ? int(Unit::matrix) : slot == 1 ? int(Unit::sfu) : int(Unit::store);
  }
  // k: the unit's queue (queue_index).
  void in_order_unit(int k, UnitState& st, int slot, Unit unit) {
    if (mode != SimMode::event_driven) return;
    if (st.busy >= 0) retire(st, unit);
    std::size_t& head = heads[std::size_t(k)];
    if (head >= queue(k).size()) return;  // program done: back to waiting for program_ready
    const InstructionQueue::Entry e = queue_entry(k, head);
    const int d = pending_dep({e.index, e.copy});
    if (d >= 0) {
      waiting_on[std::size_t(slot)] = d;
      next_trigger(wake[int(unit)]);
      return;
    }
    ++head;
    issue(st, e, unit);
  }
  void matrix_engine() { in_order_unit(dma_queue_count, matrix_state, 0, Unit::matrix); }
  void special_function_unit() { in_order_unit(dma_queue_count + 1, sfu_state, 1, Unit::sfu); }
  void store_port() { in_order_unit(int(DmaQueue::store), store_state, 2, Unit::store); }

  // Ready head of the load queues with the lowest program index, or -1; `pending` (if given)
  // receives each head's first unfinished dependency (-1: ready, or the queue is empty).
  int pick_transfer(const std::size_t* head,
                    std::array<int, dma_queue_count>* pending = nullptr) const {
    int pick = -1, pick_index = 0;
    for (int k = 0; k < load_queue_count; ++k) {
      int d = -1;
      if (head[k] < queues->dma[k].size()) {
        const InstructionQueue::Entry e = queue_entry(k, head[k]);
        d = pending_dep({e.index, e.copy});
        if (d < 0 && (pick < 0 || e.instruction < pick_index)) pick = k, pick_index = e.instruction;
      }
      if (pending) (*pending)[std::size_t(k)] = d;
    }
    return pick;
  }

  void memory_controller() {
    if (mode != SimMode::event_driven) return;
    if (memory_state.busy >= 0) {
      retire(memory_state, Unit::memory);
      // Choose only once every unit finishing in this cycle has recorded it: all finishes
      // happen in the first delta of their cycle.
      if (another_unit_finishing_now(Unit::memory)) {
        next_trigger(sc_core::SC_ZERO_TIME);
        return;
      }
    }
    bool remaining = false;
    for (int q = 0; q < load_queue_count; ++q) remaining |= heads[std::size_t(q)] < queues->dma[q].size();
    if (!remaining) return;
    std::array<int, dma_queue_count> pending;
    pending.fill(-1);  // the store queue's entry is never set by pick_transfer
    int k = pick_transfer(heads.data(), &pending);
    if (k >= 0 && structure.copies_from > 0 && !jumped) {
      const InstructionQueue::Entry e = queue_entry(k, heads[std::size_t(k)]);
      const Instruction& in = program->instructions[e.index];
      const long long layer = in.layer + (long long)e.copy;
      const long long position = e.instruction - layer * structure.instructions_per_layer;
      if (op_starts[std::size_t(position)] && fast_forward_at(int(layer), position)) k = pick_transfer(heads.data(), &pending);
    }
    if (k >= 0 && runs != nullptr) {
      const InstructionQueue::Entry e = queue_entry(k, heads[std::size_t(k)]);
      if (runs->run_of[e.index] >= 0 && fast_forward_in_run(e)) k = pick_transfer(heads.data(), &pending);
    }
    if (k < 0) {
      // Sleep until a queue head's first unfinished dependency finishes (the head may then be
      // ready; if it still waits for another, the controller names that one and sleeps again).
      memory_waiting_on = pending;
      next_trigger(wake[int(Unit::memory)]);
      return;
    }
    const InstructionQueue::Entry e = queue_entry(k, heads[std::size_t(k)]);
    ++heads[std::size_t(k)];
    issue(memory_state, e, Unit::memory);
  }

  // --- exact layer fast-forward ---------------------------------------------------------
  static constexpr long long none = std::numeric_limits<long long>::min();
  LayerStructure structure;
  long long offset = 0;
  // Whether every instruction gets its times (ScheduleTimes::every_instruction, and only for a
  // full program). Else the skipped instructions get none but the last of each queue (nothing
  // else reads them). Then the model jumps over layers once: a jump goes as far as the program
  // allows unless a full program's check shortened it, and simulating on after that costs only
  // speed (a conservative choice kept from the first compact programs, not a necessity).
  bool every_time = true;
  bool jumped = false;
  // (position in the layer, state) -> (layer, cycle)
  std::map<std::vector<long long>, std::pair<int, long long>> seen;
  // Where states are keyed: per position in a layer, whether it is the first load of an op (or
  // the layer's overhead instruction). A layer starts from empty buffers only in layer 0, so the
  // state at a layer boundary first repeats at layer 2; inside an op of layer 1 it often repeats
  // the same op of layer 0 already, which saves simulating about a layer.
  std::vector<char> op_starts;

  const InstructionQueue& queue(int k) const { return queues->queue(k); }
  std::size_t& head(int k) { return heads[std::size_t(k)]; }
  std::size_t head(int k) const { return heads[std::size_t(k)]; }
  long long end_of(int i) const { return schedule.start[std::size_t(i)] + cycles_of(i); }

  // Called when the memory controller is about to issue the instruction at `position` in layer
  // `layer` (an op_starts one) at cycle t. The state that decides everything from the beginning
  // of cycle t on is, per queue, the next instruction not issued before t and, per unit, the
  // instruction it issued last before t if it ends at or after t, with its remaining cycles (the
  // issue rules only ask which instructions are issued and finished); indices are taken
  // relative to that instruction. If the state equals the one at the same position of an earlier
  // layer l0 and the instructions involved since then are copies of each other layer by layer,
  // every following
  // period of (layer - l0) layers repeats the last one shifted by its cycles, as long as the
  // instructions its queue heads reach exist. The model then jumps over n whole periods: it
  // writes the skipped instructions' times (each one period's cycles after its copy's), moves
  // the queue heads and the instructions in flight n periods on and adds the skipped cycles to
  // its clock. Returns whether it jumped.
  bool fast_forward_at(int layer, long long position) {
    const long long t = now();
    const long long per = structure.instructions_per_layer;
    const long long base = layer * per + position;
    const Snapshot snap = snapshot(t);
    const std::array<std::size_t, queue_count>& h = snap.heads;
    std::vector<long long> key;
    key.reserve(1 + queue_count + 2 * unit_count);
    key.push_back(position);
    bool exhausted_queue = false;
    long long lowest = std::numeric_limits<long long>::max(), highest_head = none;
    for (int k = 0; k < queue_count; ++k) {
      const InstructionQueue& q = queue(k);
      if (h[std::size_t(k)] < q.size()) {
        key.push_back(snap.head_instruction[std::size_t(k)] - base);
        lowest = std::min(lowest, key.back());
        highest_head = std::max(highest_head, key.back());
      } else {
        key.push_back(none);
        exhausted_queue |= !q.empty();
      }
    }
    for (int i : snap.in_flight)
      if (i >= 0) {
        key.push_back(i - base);
        key.push_back(end_of(i) - t);
        lowest = std::min(lowest, key[key.size() - 2]);
      } else {
        key.push_back(none);
        key.push_back(0);
      }

    const auto [it, inserted] = seen.emplace(key, std::make_pair(layer, t));
    if (inserted || exhausted_queue) return false;
    const int l0 = it->second.first;
    const long long period_layers = layer - l0, period_cycles = t - it->second.second;
    const long long total = (long long)program->size();
    long long periods = (total - 1 - highest_head - base) / (period_layers * per);
    if (periods < 1) return false;
    // Every instruction from the first one this state touches to the last one the jump reaches
    // must behave as the one a period before. Layers from copies_from on are exact copies of
    // their predecessors (analyse_layers), so from `exact` on that holds by construction; the
    // instructions before it (at short contexts the KV ring spans up to 9 layers) are checked:
    // the same work, and each dependency shifted by the period or finished before both states.
    // A compact program needs no check: its layers are one template's, so instruction j and
    // j - delta (whole layers) do the same work and differ only where the earlier drops a
    // dependency x - delta < 0 that j keeps; then x < delta <= first (the earlier state's first
    // touched instruction, first - delta, exists), so x finished before both states. That is why
    // the check never refused a repeat of a builder program; full programs, which any uniform
    // program can be, keep it.
    if (!program->compact()) {
      const long long delta = period_layers * per, first = lowest + base;
      const long long exact = (long long)structure.copies_from * per + delta - per;
      const long long end = std::min(exact, highest_head + base + periods * delta + 1);
      const long long j = first_inequivalent(first, end, delta, first);
      if (j < exact) periods = std::min(periods, (j - 1 - highest_head - base) / delta);
      if (periods < 1) {
        it->second = std::make_pair(layer, t);  // measure the next repeat from this layer
        return false;
      }
    }
    const long long shift_layers = periods * period_layers, shift = shift_layers * per,
                    skipped_cycles = periods * period_cycles;
    for (int k = 0; k < queue_count; ++k) {
      const std::size_t per_period = std::size_t(period_layers) * std::size_t(structure.per_layer_in_queue[std::size_t(k)]);
      skip_queue(k, h[std::size_t(k)], std::size_t(periods) * per_period, per_period, period_cycles, skipped_cycles);
    }
    shift_units(shift, skipped_cycles);
    schedule.fast_forwarded_layers += int(shift_layers);
    seen.clear();
    jumped = !every_time;
    return true;
  }

  // What both fast-forwards key at the start of cycle t: per queue the position of the next
  // instruction not issued before t (one issued at t counts as not yet issued), and per unit
  // the instruction it issued last before t if that ends at or after t (-1: none): the store
  // port, the matrix engine and the SFU, then the memory controller.
  struct Snapshot {
    std::array<std::size_t, queue_count> heads{};
    std::array<int, queue_count> head_instruction{};  // the instruction at each head (-1: none left)
    std::array<int, unit_count> in_flight{};
  };
  Snapshot snapshot(long long t) const {
    Snapshot s;
    std::array<int, queue_count> last{};  // per queue: the instruction before the (rolled-back) head, or -1
    for (int k = 0; k < queue_count; ++k) {
      const InstructionQueue& q = queue(k);
      std::size_t x = head(k);
      int before = x > 0 ? q[x - 1] : -1;
      if (before >= 0 && schedule.start[std::size_t(before)] == t) {  // issued at t: not yet issued
        s.head_instruction[std::size_t(k)] = before;
        --x;
        before = x > 0 ? q[x - 1] : -1;
      } else {
        s.head_instruction[std::size_t(k)] = x < q.size() ? queue_entry(k, x).instruction : -1;
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
        if (last_transfer < 0 || schedule.start[std::size_t(i)] > schedule.start[std::size_t(last_transfer)]) last_transfer = i;
    s.in_flight[u] = last_transfer;
    for (int& i : s.in_flight)
      if (i >= 0 && end_of(i) < t) i = -1;
    return s;
  }

  // A jump moves queue k's head `count` entries on from position h (the skipped periods, of
  // `per_period` entries each). The skipped instructions' times are each its copy's one period
  // earlier plus the period's cycles. A run that reports only its total writes only what the
  // next state key reads: the last skipped instruction's (the one before
  // the new head), whose copy is the one before h, `skipped_cycles` earlier; every other skipped
  // instruction except those in flight (moved by shift_units) has finished by the new clock.
  void skip_queue(int k, std::size_t h, std::size_t count, std::size_t per_period, long long period_cycles,
                  long long skipped_cycles) {
    const InstructionQueue& q = queue(k);
    auto write = [&](std::size_t i, long long start) {
      schedule.start[i] = start;
      schedule.finish[i] = start + cycles_of(int(i));
      schedule.total_cycles = std::max(schedule.total_cycles, schedule.finish[i]);
    };
    if (every_time)
      for (std::size_t pos = h; pos < h + count; ++pos)
        write(std::size_t(q[pos]), schedule.start[std::size_t(q[pos - per_period])] + period_cycles);
    else if (count > 0 && h > 0)
      write(std::size_t(q[h + count - 1]), schedule.start[std::size_t(q[h - 1])] + skipped_cycles);
    head(k) += count;
  }

  // The rest of a jump of `shift` instructions and `skipped_cycles`: the instructions in flight
  // become their copies that far on (the originals finished), units asleep on an instruction
  // before the jump wake to name the shifted one, and the clock moves on.
  void shift_units(long long shift, long long skipped_cycles) {
    for (UnitState* st : {&matrix_state, &sfu_state, &memory_state, &store_state}) {
      if (st->busy < 0) continue;
      const int from = st->busy, to = int(from + shift);
      schedule.finish[std::size_t(from)] = end_of(from);
      schedule.start[std::size_t(to)] = schedule.start[std::size_t(from)] + skipped_cycles;
      st->busy = to;
      running[int(unit_of(to))] = to;
      ends_at[int(unit_of(to))] = end_of(to);
    }
    for (int u = 0; u < 3; ++u)
      if (waiting_on[std::size_t(u)] >= 0) {
        waiting_on[std::size_t(u)] = -1;
        wake[std::size_t(slot_unit(u))].notify(sc_core::SC_ZERO_TIME);
      }
    offset += skipped_cycles;
  }

  // Whether instruction j (source `later`), at a state whose earliest touched instruction is
  // `done_below` (every instruction before it has finished), behaves as instruction j - delta
  // (source `earlier`) did one period
  // earlier (earliest touched: done_below - delta): the same work, and each dependency either
  // the other's shifted by delta or finished before its own state (a missing dependency counts
  // as finished).
  bool equivalent_across_period(const Program::Source& later, const Program::Source& earlier, long long delta,
                                long long done_below) const {
    const Instruction &a = program->instructions[later.index], &b = program->instructions[earlier.index];
    if (a.unit != b.unit || a.queue != b.queue || a.cycles != b.cycles) return false;
    const Program::Dependents x = program->dependencies(later), y = program->dependencies(earlier);
    for (long long d : x)
      if (!y.holds(d - delta) && d >= done_below) return false;
    for (long long d : y)
      if (!x.holds(d + delta) && d >= done_below - delta) return false;
    return true;
  }

  // The first j in [from, to) for which equivalent_across_period(j, delta, done_below) fails,
  // or `to`.
  long long first_inequivalent(long long from, long long to, long long delta, long long done_below) const {
    if (from >= to) return to;
    Program::Source later = program->source(std::size_t(from)), earlier = program->source(std::size_t(from - delta));
    for (long long j = from; j < to; ++j, program->advance(later), program->advance(earlier))
      if (!equivalent_across_period(later, earlier, delta, done_below)) return j;
    return to;
  }
  // --- exact chunk fast-forward ---------------------------------------------------------
  // Inside an op the chunks repeat (RepeatingRuns), and so, once the buffers are full, does
  // the simulated state from one chunk to the next. Called when the memory controller is about
  // to issue a load of a run at cycle t, it takes the state as fast_forward_at does, with every
  // index relative to that load, except queue heads and instructions outside the run (the next
  // op's loads, the op's output store, the SFU's next softmax), which are keyed by their
  // absolute index: they must not move. When the state equals the one at an earlier load of the
  // run, Δ instructions and P cycles before, the model checks instruction by instruction how far
  // on every instruction repeats the one Δ before (repeats_shifted) and that every head outside
  // the run either was ready at the earlier load (it stays ready) or waits there for an
  // instruction beyond what the jump reaches (it stays blocked); then the following periods
  // replay the last one shifted by Δ instructions and P cycles, and the model jumps over the
  // whole periods that stay inside that stretch, as the layer fast-forward does.
  struct ChunkState {
    long long t = 0;
    long long base = 0;                                // the load's index
    std::array<std::size_t, queue_count> heads{};      // queue positions (issued before t)
    std::array<long long, queue_count> outside_wait{};  // heads outside the run: first pending
                                                       // dependency at t (-1: ready; none: in run)
  };
  // The key: per queue a tag and an index, per unit a tag, an index and the remaining cycles.
  struct ChunkKey {
    std::array<long long, 2 * queue_count + 3 * unit_count> v{};
    std::size_t n = 0;
    void push_back(long long x) { v[n++] = x; }
    bool operator==(const ChunkKey& o) const { return v == o.v; }
  };
  // The states keyed since the run began or the last jump: open addressing in one array that
  // is cleared by a generation count (an unordered_map allocated and freed a node per key, and
  // a design point keys ~10^5 states).
  class ChunkStates {
   public:
    // The state stored under `key`, and whether it was just inserted (as `state`).
    std::pair<ChunkState*, bool> try_emplace(const ChunkKey& key, const ChunkState& state) {
      if (2 * (count_ + 1) > slots_.size()) grow();
      const std::size_t mask = slots_.size() - 1;
      for (std::size_t i = hash(key) & mask;; i = (i + 1) & mask) {
        Slot& s = slots_[i];
        if (s.generation != generation_) {
          s = {generation_, key, state};
          ++count_;
          return {&s.state, true};
        }
        if (s.key == key) return {&s.state, false};
      }
    }
    void clear() {
      ++generation_;
      count_ = 0;
    }

   private:
    struct Slot {
      std::uint64_t generation = 0;  // stored in this generation, else empty
      ChunkKey key;
      ChunkState state;
    };
    // Four independent multiply chains (one chain of 24 multiplies was a serial dependency).
    static std::size_t hash(const ChunkKey& k) {
      std::uint64_t h[4] = {0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull, 0x2545f4914f6cdd1dull};
      for (std::size_t i = 0; i < k.v.size(); ++i) h[i % 4] = (h[i % 4] ^ std::uint64_t(k.v[i])) * 0x100000001b3ull;
      const std::uint64_t x = (h[0] ^ (h[1] >> 17)) * 0x9e3779b97f4a7c15ull ^ (h[2] ^ (h[3] >> 29));
      return std::size_t(x ^ (x >> 31));
    }
    void grow() {
      std::vector<Slot> old = std::move(slots_);
      slots_.assign(std::max<std::size_t>(64, 2 * old.size()), Slot{});
      const std::uint64_t live = generation_;
      ++generation_;  // every new slot (generation 0) reads as empty
      count_ = 0;
      for (Slot& s : old)
        if (s.generation == live && live != 0) try_emplace(s.key, s.state);
    }
    std::vector<Slot> slots_;
    std::uint64_t generation_ = 1;
    std::size_t count_ = 0;
  };
  const RepeatingRuns* runs = nullptr;
  ChunkStates chunk_seen;
  long long chunk_run_begin = -1;  // the run chunk_seen's states belong to
  // Which loads of the run are keyed. Most runs repeat within a buffer's worth of chunks, but
  // in a compute-bound op whose loads and compute nearly balance the phase drifts and no state
  // ever repeats: keying every load there cost a third of a design point's time for nothing. So
  // the first dense_keys loads (since the run began or the last jump) are all keyed, then every
  // 2nd, 4th, ... up to every max_key_spacing-th, the spacing doubling every dense_keys keys. A
  // state that repeats every P loads is still found, once the spacing's multiples meet P's; the
  // jump itself does not depend on which loads were keyed.
  static constexpr long long dense_keys = 16, max_key_spacing = 64;
  long long chunk_loads = 0, chunk_keys = 0, chunk_next_key = 0;
  void restart_chunk_keys() {
    chunk_seen.clear();
    chunk_loads = chunk_keys = chunk_next_key = 0;
  }

  bool fast_forward_in_run(const InstructionQueue::Entry& e) {
    const RepeatingRuns::Run& run = runs->runs[std::size_t(runs->run_of[e.index])];
    const long long shift_of_copy = (long long)e.copy * (long long)program->period_size();
    // The run in the instruction's layer copy (a compact program's template run, shifted).
    const long long run_begin = run.begin + shift_of_copy, run_end = run.end + shift_of_copy;
    if (run_begin != chunk_run_begin) {
      restart_chunk_keys();
      chunk_run_begin = run_begin;
    }
    if (chunk_loads++ < chunk_next_key) return false;
    // States are keyed from the run's own instructions only (the first `stride` of a run
    // repeat instructions before it).
    const long long region_begin = run_begin - run.stride;
    const long long t = now(), base = e.instruction;
    auto in_run = [&](long long i) { return i >= region_begin && i < run_end; };
    ChunkState state;
    state.t = t;
    state.base = base;
    ChunkKey key;
    constexpr long long tag_none = 0, tag_relative = 1, tag_absolute = 2;
    long long lowest = std::numeric_limits<long long>::max(), highest_head = none;
    const Snapshot snap = snapshot(t);
    state.heads = snap.heads;
    for (int k = 0; k < queue_count; ++k) {
      const InstructionQueue& q = queue(k);
      const std::size_t x = snap.heads[std::size_t(k)];
      state.outside_wait[std::size_t(k)] = none;
      if (x >= q.size()) {
        key.push_back(tag_none);
        key.push_back(0);
      } else if (const long long i = snap.head_instruction[std::size_t(k)]; in_run(i)) {
        key.push_back(tag_relative);
        key.push_back(i - base);
        lowest = std::min(lowest, i);
        highest_head = std::max(highest_head, i);
      } else {
        key.push_back(tag_absolute);
        key.push_back(i);
        state.outside_wait[std::size_t(k)] = pending_dep(int(i));
      }
    }
    for (int i : snap.in_flight)
      if (i >= 0) {
        key.push_back(in_run(i) ? tag_relative : tag_absolute);
        key.push_back(in_run(i) ? i - base : i);
        key.push_back(end_of(i) - t);
        if (in_run(i)) lowest = std::min(lowest, (long long)i);
      } else {
        key.push_back(tag_none);
        key.push_back(0);
        key.push_back(0);
      }
    if (highest_head == none) return false;

    const std::pair<ChunkState*, bool> emplaced = chunk_seen.try_emplace(key, state);
    ChunkState* const stored = emplaced.first;
    if (emplaced.second) {
      ++chunk_keys;
      chunk_next_key = chunk_loads + std::min(max_key_spacing, 1LL << std::min(6LL, chunk_keys / dense_keys)) - 1;
      return false;
    }
    // A repeat that cannot be jumped over (a period reaching back before the run repeats, or a
    // head outside the run that changed) becomes the reference for the next one: comparing
    // later states with the old one would fail alike.
    auto refuse = [&] {
      *stored = state;
      return false;
    };
    const ChunkState& a = *stored;
    const long long delta = base - a.base, period_cycles = t - a.t;
    if (delta <= 0 || period_cycles <= 0) return refuse();
    // How far on every instruction repeats the one Δ before (from the earliest one the last
    // period touched), within the program and short of every head outside the run.
    long long stop = (long long)program->size();
    for (int k = 0; k < queue_count; ++k)
      if (state.outside_wait[std::size_t(k)] != none) stop = std::min(stop, (long long)queue(k)[state.heads[std::size_t(k)]]);
    // Inside the run every instruction repeats the one `stride` before, hence (by induction) the
    // one Δ before wherever that chain stays in the run: [run_begin + Δ - stride, run_end) needs
    // no check when Δ is a multiple of the stride. The rest is checked one by one.
    // (A compact program's runs are its template's: they hold in the layers that keep every
    // template dependency, LayerStructure::complete_from.)
    long long known_begin = run_end, known_end = run_end;
    if (delta % run.stride == 0 && (!program->compact() || (long long)e.copy >= structure.complete_from))
      known_begin = std::max(lowest, run_begin + delta - run.stride);
    long long j = lowest;  // the first instruction this state touches; its copy is Δ before
    Program::Source later{}, earlier{};  // of j and j - Δ, while `walking`
    bool walking = false;
    while (j < stop) {
      if (j >= known_begin && j < known_end) {
        j = std::min(known_end, stop);
        walking = false;
        continue;
      }
      if (!walking) {
        later = program->source(std::size_t(j));
        earlier = program->source(std::size_t(j - delta));
        walking = true;
      }
      if (!program->repeats(later, earlier, delta)) break;
      ++j;
      program->advance(later);
      program->advance(earlier);
    }
    // Instructions [lowest, j) repeat; n periods reach highest_head + nΔ.
    long long periods = (j - 1 - highest_head) / delta;
    // Heads outside the run: ready at the earlier state (they stay ready), or waiting for an
    // instruction the jump does not reach (they stay blocked).
    for (int k = 0; k < queue_count; ++k) {
      const long long w = a.outside_wait[std::size_t(k)];
      if (w != state.outside_wait[std::size_t(k)]) return refuse();  // became ready during the period
      if (w == none || w < 0) continue;
      periods = std::min(periods, (w - 1 - highest_head) / delta);
    }
    if (periods < 1) return refuse();
    // Equal keys put every moving head Δ instructions on and leave the others where they were;
    // a head behind its earlier position would mean the keys lied: never jump on that.
    for (int k = 0; k < queue_count; ++k)
      if (state.heads[std::size_t(k)] < a.heads[std::size_t(k)]) return refuse();
    const long long shift = periods * delta, skipped_cycles = periods * period_cycles;
    long long skipped = 0;
    for (int k = 0; k < queue_count; ++k) {
      const std::size_t per_period = state.heads[std::size_t(k)] - a.heads[std::size_t(k)];
      const std::size_t count = std::size_t(periods) * per_period;
      skip_queue(k, state.heads[std::size_t(k)], count, per_period, period_cycles, skipped_cycles);
      skipped += (long long)count;
    }
    shift_units(shift, skipped_cycles);
    schedule.fast_forwarded_chunk_instructions += skipped;
    ++schedule.chunk_jumps;
    restart_chunk_keys();
    return true;
  }

  // --- clocked reference ----------------------------------------------------------------
  void clocked_reference() {
    for (;;) {
      wait(program_ready);
      if (mode != SimMode::clocked) continue;
      struct Busy { int instr = -1; long long remaining = 0; };
      Busy matrix, sfu, memory, store;
      std::size_t head_matrix = 0, head_sfu = 0;
      std::array<std::size_t, dma_queue_count> head{};
      std::size_t retired = 0;
      const std::size_t total = program->size();
      for (;;) {
        for (Busy* b : {&matrix, &sfu, &memory, &store})
          if (b->instr >= 0 && b->remaining == 0) {
            end(b->instr);
            b->instr = -1;
            ++retired;
          }
        if (retired == total) break;
        auto try_issue = [&](Busy& b, const InstructionQueue& q, std::size_t& h) {
          if (b.instr < 0 && h < q.size() && deps_done(q[h])) {
            b.instr = q[h++];
            b.remaining = cycles_of(b.instr);
            begin(b.instr);
          }
        };
        try_issue(matrix, queues->matrix, head_matrix);
        try_issue(sfu, queues->sfu, head_sfu);
        try_issue(store, queues->dma[int(DmaQueue::store)], head[int(DmaQueue::store)]);
        if (memory.instr < 0) {
          const int k = pick_transfer(head.data());
          if (k >= 0) try_issue(memory, queues->dma[k], head[k]);
        }
        wait(cycle);
        for (Busy* b : {&matrix, &sfu, &memory, &store})
          if (b->instr >= 0) --b->remaining;
      }
    }
  }
};

}  // namespace

FpgaSimulationWork fpga_simulation_work() {
  const WorkCounters& w = work_counters();
  return {w.runs.load(std::memory_order_relaxed), w.instructions.load(std::memory_order_relaxed),
          w.simulated.load(std::memory_order_relaxed)};
}

Schedule run_on_systemc(const Program& program, SimMode mode, LayerFastForward ff, ScheduleTimes times) {
  // A fresh SystemC context and accelerator per program (sim/sc_session.hpp): any number of
  // programs, boards and engines per process. The schedule's ~MB buffers are recycled across
  // runs (fresh buffers every run cost page faults); the session lock guards the scratch.
  // Everything that needs no SystemC is prepared before the session takes the kernel lock, so
  // that concurrent callers (sweep threads) overlap it.
  auto queues = std::make_unique<UnitQueues>(program);
  const bool exact = ff == LayerFastForward::exact && mode == SimMode::event_driven;
  const LayerStructure layers = exact ? analyse_layers(program) : LayerStructure{};
  const RepeatingRuns repeating = exact ? analyse_repeating_runs(program) : RepeatingRuns{};
  std::vector<char> op_starts(std::size_t(std::max(0, layers.instructions_per_layer)), 0);  // Accelerator::op_starts
  std::vector<char> op_seen(program.op_names.size() + 1, 0);  // op + 1 (-1: the layer overhead)
  for (int i = 0; i < layers.instructions_per_layer; ++i) {
    const Instruction& in = program.instructions[std::size_t(i)];
    if (in.unit != Unit::memory || std::size_t(in.op + 1) >= op_seen.size() || op_seen[std::size_t(in.op + 1)]) continue;
    op_seen[std::size_t(in.op + 1)] = 1;
    op_starts[std::size_t(i)] = 1;
  }
  const bool times_wanted = times == ScheduleTimes::every_instruction;
  ScSession session;
  static Schedule scratch;
  auto a = std::make_unique<Accelerator>("specdse_fpga_accelerator");
  a->schedule = std::move(scratch);
  a->load(program, mode, std::move(queues), layers, exact && !repeating.runs.empty() ? &repeating : nullptr,
          times_wanted);
  a->op_starts = std::move(op_starts);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborate; units park on program_ready
  a->base = sc_core::sc_time_stamp();
  a->program_ready.notify(sc_core::SC_ZERO_TIME);
  session.run();  // until every unit has retired its queue
  Schedule result;
  result.total_cycles = a->schedule.total_cycles;
  result.fast_forwarded_layers = a->schedule.fast_forwarded_layers;
  result.simulated_instructions = a->schedule.simulated_instructions;
  result.fast_forwarded_chunk_instructions = a->schedule.fast_forwarded_chunk_instructions;
  result.chunk_jumps = a->schedule.chunk_jumps;
  WorkCounters& work = work_counters();
  work.runs.fetch_add(1, std::memory_order_relaxed);
  work.instructions.fetch_add((long long)program.size(), std::memory_order_relaxed);
  work.simulated.fetch_add(result.simulated_instructions, std::memory_order_relaxed);
  if (a->every_time) {  // else only the totals: the skipped instructions have no times
    result.start.assign(a->schedule.start.begin(), a->schedule.start.begin() + std::ptrdiff_t(program.size()));
    result.finish.assign(a->schedule.finish.begin(), a->schedule.finish.begin() + std::ptrdiff_t(program.size()));
  }
  scratch = std::move(a->schedule);
  return result;
}

}  // namespace sim
