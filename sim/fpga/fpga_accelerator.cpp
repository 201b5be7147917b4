// run_on_systemc: prepares a program for the accelerator module (accelerator/), runs it in a
// SystemC session of its own and hands back its schedule.
#include "sim/fpga/fpga_accelerator.hpp"

#include <systemc>

#include "sim/fpga/accelerator/accelerator_module.hpp"
#include "sim/fpga/accelerator/layer_fast_forward.hpp"
#include "sim/fpga/accelerator/simulation_work.hpp"
#include "sim/sc_session.hpp"

#include <memory>

namespace sim {

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
  std::vector<char> op_starts = accelerator::find_op_starts(program, layers);
  const bool times_wanted = times == ScheduleTimes::every_instruction;
  ScSession session;
  static Schedule scratch;
  auto a = std::make_unique<accelerator::AcceleratorModule>("specdse_fpga_accelerator", mode);
  accelerator::Scoreboard& board = a->board;
  board.schedule = std::move(scratch);
  a->load(program, mode, std::move(queues), layers, std::move(op_starts),
          exact && !repeating.runs.empty() ? &repeating : nullptr, times_wanted);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborate; units park on program_ready
  board.base = sc_core::sc_time_stamp();
  a->program_ready.notify(sc_core::SC_ZERO_TIME);
  session.run();  // until every unit has retired its queue
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
  scratch = std::move(board.schedule);
  return result;
}

}  // namespace sim
