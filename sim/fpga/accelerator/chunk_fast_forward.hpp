#pragma once
// Exact chunk fast-forward (LayerFastForward::exact, event-driven mode, a program with
// RepeatingRuns). Inside an op the chunks repeat (RepeatingRuns), and so, once the buffers are
// full, does the simulated state from one chunk to the next. Called when the memory controller
// is about to issue a load of a run at cycle t, it takes the state as the layer fast-forward
// does, with every index relative to that load, except queue heads and instructions outside
// the run (the next op's loads, the op's output store, the SFU's next softmax), which are
// keyed by their absolute index: they must not move. When the state equals the one at an
// earlier load of the run, Δ instructions and P cycles before, the model checks instruction by
// instruction how far on every instruction repeats the one Δ before (repeats_shifted) and that
// every head outside the run either was ready at the earlier load (it stays ready) or waits
// there for an instruction beyond what the jump reaches (it stays blocked); then the following
// periods replay the last one shifted by Δ instructions and P cycles, and the model jumps over
// the whole periods that stay inside that stretch, as the layer fast-forward does.
#include "sim/fpga/accelerator/chunk_state_table.hpp"
#include "sim/fpga/accelerator/scoreboard.hpp"

namespace sim::accelerator {

class ChunkFastForwarder {
 public:
  // `repeating`: null where the chunk fast-forward is off or the program has no runs.
  // `complete_from`: LayerStructure::complete_from.
  void load(const RepeatingRuns* repeating, int complete_from) {
    runs_ = repeating;
    complete_from_ = complete_from;
    restart_chunk_keys();
    chunk_run_begin_ = -1;
  }
  bool armed() const { return runs_ != nullptr; }
  // Called when the memory controller is about to issue the load at queue entry e; returns
  // whether the model jumped (the queue heads moved: the controller picks again).
  bool jump_at_load(Scoreboard& board, const InstructionQueue::Entry& e) {
    return runs_->run_of[e.index] >= 0 && jump_in_run(board, e);
  }

 private:
  bool jump_in_run(Scoreboard& board, const InstructionQueue::Entry& e);
  void restart_chunk_keys() {
    chunk_seen_.clear();
    chunk_loads_ = chunk_keys_ = chunk_next_key_ = 0;
  }

  const RepeatingRuns* runs_ = nullptr;
  int complete_from_ = 0;
  ChunkStateTable chunk_seen_;
  long long chunk_run_begin_ = -1;  // the run chunk_seen_'s states belong to
  // Which loads of the run are keyed. Most runs repeat within a buffer's worth of chunks, but
  // in a compute-bound op whose loads and compute nearly balance the phase drifts and no state
  // ever repeats: keying every load there cost a third of a design point's time for nothing. So
  // the first dense_keys loads (since the run began or the last jump) are all keyed, then every
  // 2nd, 4th, ... up to every max_key_spacing-th, the spacing doubling every dense_keys keys. A
  // state that repeats every P loads is still found, once the spacing's multiples meet P's; the
  // jump itself does not depend on which loads were keyed.
  // The keys restart at a run's first load and whenever a load of another run cuts in (two ops'
  // streams interleave; the other run's head moves, so no key would match across it), and most
  // such stretches end within a few loads without a repeat: a stretch's first first_key loads are
  // not keyed. Over the regimes sweep (configs/sweeps/compute_bandwidth_ratio.yaml at four
  // bandwidths) and fig4, first_key 3 and dense_keys 6 ran 8-10 % fewer instructions than 0 and
  // 16 (callgrind), every schedule the same.
  static constexpr long long first_key = 3, dense_keys = 6, max_key_spacing = 64;
  long long chunk_loads_ = 0, chunk_keys_ = 0, chunk_next_key_ = 0;
};

}  // namespace sim::accelerator
