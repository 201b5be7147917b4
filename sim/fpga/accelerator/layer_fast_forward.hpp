#pragma once
// Exact layer fast-forward (LayerFastForward::exact, event-driven mode): at the first load of
// each op in a layer the memory controller hands the state to this unit; when it equals the
// state at the same place of an earlier layer and the layers in between are copies, the
// following periods replay it exactly, and the model jumps over every whole period that the
// program still holds (fpga_accelerator.hpp, LayerFastForward).
#include <map>
#include <utility>
#include <vector>

#include "sim/fpga/accelerator/scoreboard.hpp"

namespace sim::accelerator {

// Where states are keyed: per position in a layer, whether it is the first load of an op (or
// the layer's overhead instruction). A layer starts from empty buffers only in layer 0, so the
// state at a layer boundary first repeats at layer 2; inside an op of layer 1 it often repeats
// the same op of layer 0 already, which saves simulating about a layer.
// Needs no SystemC: run_on_systemc finds them before it takes the SystemC lock.
std::vector<char> find_op_starts(const Program& program, const LayerStructure& layers);

class LayerFastForwarder {
 public:
  void load(const LayerStructure& layers, std::vector<char> op_starts) {
    structure_ = layers;
    op_starts_ = std::move(op_starts);
    seen_.clear();
    jumped_ = false;
  }
  const LayerStructure& structure() const { return structure_; }
  // Whether a load may still start a jump: the program has copied layers, and a run that
  // writes only its totals has not jumped yet.
  bool armed() const { return structure_.copies_from > 0 && !jumped_; }
  // Called when the memory controller is about to issue the load at queue entry e; returns
  // whether the model jumped (the queue heads moved: the controller picks again).
  bool jump_at_load(Scoreboard& board, const InstructionQueue::Entry& e) {
    const Instruction& in = board.program->instructions[e.index];
    const long long layer = in.layer + (long long)e.copy;
    const long long position = e.instruction - layer * structure_.instructions_per_layer;
    return op_starts_[std::size_t(position)] && jump_at(board, int(layer), position);
  }

 private:
  bool jump_at(Scoreboard& board, int layer, long long position);
  bool equivalent_across_period(const Program& program, const Program::Source& later,
                                const Program::Source& earlier, long long delta, long long done_below) const;
  long long first_inequivalent(const Program& program, long long from, long long to, long long delta,
                               long long done_below) const;

  LayerStructure structure_;
  std::vector<char> op_starts_;  // find_op_starts
  // (position in the layer, state) -> (layer, cycle)
  std::map<std::vector<long long>, std::pair<int, long long>> seen_;
  // A run that writes only its totals (Scoreboard::every_time false) jumps over layers once: a
  // jump goes as far as the program allows unless a full program's check shortened it, and
  // simulating on after that costs only speed (a conservative choice kept from the first
  // compact programs, not a necessity).
  bool jumped_ = false;
};

}  // namespace sim::accelerator
