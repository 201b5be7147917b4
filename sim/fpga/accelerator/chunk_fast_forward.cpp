#include "sim/fpga/accelerator/chunk_fast_forward.hpp"

#include <algorithm>
#include <limits>

#include "sim/fpga/accelerator/period_jump.hpp"
#include "sim/fpga/accelerator/state_snapshot.hpp"

namespace sim::accelerator {

bool ChunkFastForwarder::jump_in_run(Scoreboard& board, const InstructionQueue::Entry& e) {
  const Program& program = *board.program;
  const RepeatingRuns::Run& run = runs_->runs[std::size_t(runs_->run_of[e.index])];
  const long long shift_of_copy = (long long)e.copy * (long long)program.period_size();
  // The run in the instruction's layer copy (a compact program's template run, shifted).
  const long long run_begin = run.begin + shift_of_copy, run_end = run.end + shift_of_copy;
  if (run_begin != chunk_run_begin_) {
    restart_chunk_keys();
    chunk_run_begin_ = run_begin;
    chunk_next_key_ = first_key;
  }
  if (chunk_loads_++ < chunk_next_key_) return false;
  // States are keyed from the run's own instructions only (the first `stride` of a run
  // repeat instructions before it).
  const long long region_begin = run_begin - run.stride;
  const long long t = board.now(), base = e.instruction;
  auto in_run = [&](long long i) { return i >= region_begin && i < run_end; };
  ChunkState state;
  state.t = t;
  state.base = base;
  ChunkKey key;
  constexpr long long tag_none = 0, tag_relative = 1, tag_absolute = 2;
  long long lowest = std::numeric_limits<long long>::max(), highest_head = none;
  const StateSnapshot snap = take_snapshot(board, t);
  state.heads = snap.heads;
  for (int k = 0; k < queue_count; ++k) {
    const InstructionQueue& q = board.queue(k);
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
      state.outside_wait[std::size_t(k)] = board.pending_dep(int(i));
    }
  }
  for (int i : snap.in_flight)
    if (i >= 0) {
      key.push_back(in_run(i) ? tag_relative : tag_absolute);
      key.push_back(in_run(i) ? i - base : i);
      key.push_back(board.end_of(i) - t);
      if (in_run(i)) lowest = std::min(lowest, (long long)i);
    } else {
      key.push_back(tag_none);
      key.push_back(0);
      key.push_back(0);
    }
  if (highest_head == none) return false;

  const std::pair<ChunkState*, bool> emplaced = chunk_seen_.try_emplace(key, state);
  ChunkState* const stored = emplaced.first;
  if (emplaced.second) {
    ++chunk_keys_;
    chunk_next_key_ = chunk_loads_ + std::min(max_key_spacing, 1LL << std::min(6LL, chunk_keys_ / dense_keys)) - 1;
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
  long long stop = (long long)program.size();
  for (int k = 0; k < queue_count; ++k)
    if (state.outside_wait[std::size_t(k)] != none) stop = std::min(stop, (long long)board.queue(k)[state.heads[std::size_t(k)]]);
  // Inside the run every instruction repeats the one `stride` before, hence (by induction) the
  // one Δ before wherever that chain stays in the run: [run_begin + Δ - stride, run_end) needs
  // no check when Δ is a multiple of the stride. The rest is checked one by one.
  // (A compact program's runs are its template's: they hold in the layers that keep every
  // template dependency, LayerStructure::complete_from.)
  long long known_begin = run_end, known_end = run_end;
  if (delta % run.stride == 0 && (!program.compact() || (long long)e.copy >= complete_from_))
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
      later = program.source(std::size_t(j));
      earlier = program.source(std::size_t(j - delta));
      walking = true;
    }
    if (!program.repeats(later, earlier, delta)) break;
    ++j;
    program.advance(later);
    program.advance(earlier);
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
    skip_queue(board, k, state.heads[std::size_t(k)], count, per_period, period_cycles, skipped_cycles);
    skipped += (long long)count;
  }
  shift_units(board, shift, skipped_cycles);
  board.schedule.fast_forwarded_chunk_instructions += skipped;
  ++board.schedule.chunk_jumps;
  restart_chunk_keys();
  return true;
}

}  // namespace sim::accelerator
