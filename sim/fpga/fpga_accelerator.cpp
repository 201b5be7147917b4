// run_on_systemc: prepares a program for the accelerator module (accelerator/), runs it on the
// calling thread's accelerator (event-driven) or a fresh one (clocked) and hands back its schedule.
#include "sim/fpga/fpga_accelerator.hpp"

#include <systemc>

#include "sim/fpga/accelerator/accelerator_module.hpp"
#include "sim/fpga/accelerator/layer_fast_forward.hpp"
#include "sim/fpga/accelerator/simulation_work.hpp"
#include "sim/sc_session.hpp"

#include <memory>

namespace sim {

namespace {

// The event-driven accelerator of the calling thread, built once in a SystemC context of its own
// and reused by every program the thread runs: creating the module (its names, processes and
// events), elaborating it and deleting the context again took 7-9 % of the regimes sweep's time
// (perf), inside the kernel lock. A program starts from Scoreboard::load's state at the
// context's current time (the units count cycles from board.base), and no event is left pending
// when one ends (every unit waits for program_ready again), so each run is what a fresh
// module's is (every CSV of `reproduce all --engine sim` is byte-identical).
struct ThreadAccelerator {
  ScContext context;
  std::unique_ptr<accelerator::AcceleratorModule> module;
  ThreadAccelerator() {
    ScSession session(context);
    try {
      module = std::make_unique<accelerator::AcceleratorModule>("specdse_fpga_accelerator", SimMode::event_driven);
      sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborate; units park on program_ready
    } catch (...) {
      module.reset();  // inside the session, as every SystemC object must go
      throw;
    }
  }
  ~ThreadAccelerator() {
    ScSession session(context);
    module.reset();
  }
  // SystemC time only grows (1 ps resolution, 64 bits): start afresh long before it could wrap.
  bool worn() const { return context.get()->time_stamp().value() > (1ULL << 62); }
};

std::unique_ptr<ThreadAccelerator>& thread_accelerator() {
  thread_local std::unique_ptr<ThreadAccelerator> accelerator;
  return accelerator;
}

// The schedule a finished run hands back, from the board's.
Schedule collect(const accelerator::Scoreboard& board, const Program& program) {
  Schedule result;
  result.total_cycles = board.schedule.total_cycles;
  result.fast_forwarded_layers = board.schedule.fast_forwarded_layers;
  result.simulated_instructions = board.schedule.simulated_instructions;
  result.fast_forwarded_chunk_instructions = board.schedule.fast_forwarded_chunk_instructions;
  result.chunk_jumps = board.schedule.chunk_jumps;
  accelerator::record_simulation_work((long long)program.size(), result.simulated_instructions);
  if (board.every_time) {  // else only the totals: the skipped instructions have no times
    result.start.assign(board.schedule.start.begin(), board.schedule.start.begin() + std::ptrdiff_t(program.size()));
    result.finish.assign(board.schedule.finish.begin(), board.schedule.finish.begin() + std::ptrdiff_t(program.size()));
  }
  return result;
}

}  // namespace

Schedule run_on_systemc(const Program& program, SimMode mode, LayerFastForward ff, ScheduleTimes times) {
  // Everything that needs no SystemC is prepared before the session takes the kernel lock, so
  // that concurrent callers (sweep threads) overlap it.
  auto queues = std::make_unique<UnitQueues>(program);
  const bool exact = ff == LayerFastForward::exact && mode == SimMode::event_driven;
  const LayerStructure layers = exact ? analyse_layers(program) : LayerStructure{};
  const RepeatingRuns repeating = exact ? analyse_repeating_runs(program) : RepeatingRuns{};
  std::vector<char> op_starts = accelerator::find_op_starts(program, layers);
  const bool times_wanted = times == ScheduleTimes::every_instruction;
  const RepeatingRuns* runs = exact && !repeating.runs.empty() ? &repeating : nullptr;

  if (mode == SimMode::event_driven) {
    std::unique_ptr<ThreadAccelerator>& accelerator = thread_accelerator();
    if (accelerator && accelerator->worn()) accelerator.reset();
    if (!accelerator) accelerator = std::make_unique<ThreadAccelerator>();
    try {
      ScSession session(accelerator->context);
      accelerator::AcceleratorModule& a = *accelerator->module;
      a.load(program, mode, std::move(queues), layers, std::move(op_starts), runs, times_wanted);
      a.board.base = sc_core::sc_time_stamp();
      a.program_ready.notify(sc_core::SC_ZERO_TIME);
      session.run();  // until every unit has retired its queue
      return collect(a.board, program);
    } catch (...) {
      accelerator.reset();  // a run cut short may leave events pending: never reuse it
      throw;
    }
  }

  // The clocked reference: a fresh SystemC context and accelerator per program (its thread's
  // coroutine is not reused). The schedule's ~MB buffers are recycled across runs (fresh
  // buffers every run cost page faults); the session lock guards the scratch.
  ScSession session;
  static Schedule scratch;
  auto a = std::make_unique<accelerator::AcceleratorModule>("specdse_fpga_accelerator", mode);
  accelerator::Scoreboard& board = a->board;
  board.schedule = std::move(scratch);
  a->load(program, mode, std::move(queues), layers, std::move(op_starts), runs, times_wanted);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborate; units park on program_ready
  board.base = sc_core::sc_time_stamp();
  a->program_ready.notify(sc_core::SC_ZERO_TIME);
  session.run();  // until every unit has retired its queue
  Schedule result = collect(board, program);
  scratch = std::move(board.schedule);
  return result;
}

}  // namespace sim
