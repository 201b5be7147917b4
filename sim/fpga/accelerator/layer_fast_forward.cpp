#include "sim/fpga/accelerator/layer_fast_forward.hpp"

#include <algorithm>
#include <limits>

#include "sim/fpga/accelerator/period_jump.hpp"
#include "sim/fpga/accelerator/state_snapshot.hpp"

namespace sim::accelerator {

std::vector<char> find_op_starts(const Program& program, const LayerStructure& layers) {
  std::vector<char> op_starts(std::size_t(std::max(0, layers.instructions_per_layer)), 0);
  std::vector<char> op_seen(program.op_names.size() + 1, 0);  // op + 1 (-1: the layer overhead)
  for (int i = 0; i < layers.instructions_per_layer; ++i) {
    const Instruction& in = program.instructions[std::size_t(i)];
    if (in.unit != Unit::memory || std::size_t(in.op + 1) >= op_seen.size() || op_seen[std::size_t(in.op + 1)]) continue;
    op_seen[std::size_t(in.op + 1)] = 1;
    op_starts[std::size_t(i)] = 1;
  }
  return op_starts;
}

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
bool LayerFastForwarder::jump_at(Scoreboard& board, int layer, long long position) {
  const Program& program = *board.program;
  const long long t = board.now();
  const long long per = structure_.instructions_per_layer;
  const long long base = layer * per + position;
  const StateSnapshot snap = take_snapshot(board, t);
  const std::array<std::size_t, queue_count>& h = snap.heads;
  std::vector<long long> key;
  key.reserve(1 + queue_count + 2 * unit_count);
  key.push_back(position);
  bool exhausted_queue = false;
  long long lowest = std::numeric_limits<long long>::max(), highest_head = none;
  for (int k = 0; k < queue_count; ++k) {
    const InstructionQueue& q = board.queue(k);
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
      key.push_back(board.end_of(i) - t);
      lowest = std::min(lowest, key[key.size() - 2]);
    } else {
      key.push_back(none);
      key.push_back(0);
    }

  const auto [it, inserted] = seen_.emplace(key, std::make_pair(layer, t));
  if (inserted || exhausted_queue) return false;
  const int l0 = it->second.first;
  const long long period_layers = layer - l0, period_cycles = t - it->second.second;
  const long long total = (long long)program.size();
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
  if (!program.compact()) {
    const long long delta = period_layers * per, first = lowest + base;
    const long long exact = (long long)structure_.copies_from * per + delta - per;
    const long long end = std::min(exact, highest_head + base + periods * delta + 1);
    const long long j = first_inequivalent(program, first, end, delta, first);
    if (j < exact) periods = std::min(periods, (j - 1 - highest_head - base) / delta);
    if (periods < 1) {
      it->second = std::make_pair(layer, t);  // measure the next repeat from this layer
      return false;
    }
  }
  const long long shift_layers = periods * period_layers, shift = shift_layers * per,
                  skipped_cycles = periods * period_cycles;
  for (int k = 0; k < queue_count; ++k) {
    const std::size_t per_period = std::size_t(period_layers) * std::size_t(structure_.per_layer_in_queue[std::size_t(k)]);
    skip_queue(board, k, h[std::size_t(k)], std::size_t(periods) * per_period, per_period, period_cycles, skipped_cycles);
  }
  shift_units(board, shift, skipped_cycles);
  board.schedule.fast_forwarded_layers += int(shift_layers);
  seen_.clear();
  jumped_ = !board.every_time;
  return true;
}

// Whether instruction j (source `later`), at a state whose earliest touched instruction is
// `done_below` (every instruction before it has finished), behaves as instruction j - delta
// (source `earlier`) did one period
// earlier (earliest touched: done_below - delta): the same work, and each dependency either
// the other's shifted by delta or finished before its own state (a missing dependency counts
// as finished).
bool LayerFastForwarder::equivalent_across_period(const Program& program, const Program::Source& later,
                                                  const Program::Source& earlier, long long delta,
                                                  long long done_below) const {
  const Instruction &a = program.instructions[later.index], &b = program.instructions[earlier.index];
  if (a.unit != b.unit || a.queue != b.queue || a.cycles != b.cycles) return false;
  const Program::Dependents x = program.dependencies(later), y = program.dependencies(earlier);
  for (long long d : x)
    if (!y.holds(d - delta) && d >= done_below) return false;
  for (long long d : y)
    if (!x.holds(d + delta) && d >= done_below - delta) return false;
  return true;
}

// The first j in [from, to) for which equivalent_across_period(j, delta, done_below) fails,
// or `to`.
long long LayerFastForwarder::first_inequivalent(const Program& program, long long from, long long to,
                                                 long long delta, long long done_below) const {
  if (from >= to) return to;
  Program::Source later = program.source(std::size_t(from)), earlier = program.source(std::size_t(from - delta));
  for (long long j = from; j < to; ++j, program.advance(later), program.advance(earlier))
    if (!equivalent_across_period(program, later, earlier, delta, done_below)) return j;
  return to;
}

}  // namespace sim::accelerator
