#pragma once
// The instruction stream of a FlightLLM-like accelerator: LOAD / STORE transfers on the memory
// controller (three DMA queues: weights, KV, stores), MATRIX work on the matrix engine and
// MISC work on the SFU, each with the instructions it depends on.
//
// Issue rules (shared by the direct scheduler, the event-driven SystemC model and the clocked
// SystemC model, which must agree cycle for cycle):
//  - the matrix engine and the SFU issue their instructions in program order, each as soon as
//    the unit is free and its dependencies have finished;
//  - the memory controller serves one transfer at a time (weights and KV share the HBM
//    channels, so transfers serialise); each DMA queue is in program order, and when the
//    controller is free it starts the ready queue head with the lowest program index;
//  - every instruction takes at least one cycle.
#include <array>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace sim {

enum class Unit { memory = 0, matrix = 1, sfu = 2 };
enum class DmaQueue { weights = 0, kv = 1, store = 2 };
constexpr int dma_queue_count = 3;
const char* to_string(Unit u);

// At most three dependencies (previous compute, a load, a softmax), stored inline: programs
// have tens of thousands of instructions and a heap vector each dominated their build time.
class Dependencies {
 public:
  Dependencies() = default;
  Dependencies(std::initializer_list<int> ids) {
    for (int d : ids) add(d);
  }
  void add(int d) {  // -1: no dependency
    if (d < 0) return;
    if (count_ == ids_.size()) throw std::logic_error("instruction with more than three dependencies");
    ids_[count_++] = d;
  }
  const int* begin() const { return ids_.data(); }
  const int* end() const { return ids_.data() + count_; }

 private:
  std::array<int, 3> ids_{};
  std::size_t count_ = 0;
};

struct Instruction {
  Unit unit = Unit::matrix;
  DmaQueue queue = DmaQueue::weights;  // memory instructions only
  long long cycles = 1;
  Dependencies deps;      // indices of earlier instructions
  int op = -1;            // op index within the layer (-1: layer overhead)
  int layer = 0;          // which copy of the layer (multi-layer windows)
};

struct Program {
  std::vector<Instruction> instructions;
  std::vector<std::string> op_names;
  int layers = 1;
};

struct Schedule {
  std::vector<long long> start, finish;
  long long total_cycles = 0;
  // Layers the event-driven model did not simulate because it proved they repeat exactly
  // (their times are filled in by shifting the repeating period); 0 for the other schedulers.
  int fast_forwarded_layers = 0;
  // Finish time of each layer copy (max over its instructions).
  std::vector<long long> layer_finish(const Program& p) const;
};

// Reference scheduler without SystemC: the same rules as a plain discrete-event loop.
Schedule schedule_directly(const Program& p);

// Per-queue program-order lists of instruction indices (memory queues, matrix, sfu).
struct UnitQueues {
  std::vector<int> dma[dma_queue_count];
  std::vector<int> matrix, sfu;
  explicit UnitQueues(const Program& p);
};

// How a multi-layer program repeats, for the event-driven model's exact layer fast-forward
// (fpga_accelerator.cpp). Layers are "uniform" when every layer has the same instruction count
// and the same unit, queue, cycles and op at each position; layer l is a "copy" of layer l - 1
// when, in addition, every dependency is the previous layer's shifted by one layer (layer 0's
// buffer slots start empty, so its loads lack the ring dependencies the later layers have).
struct LayerStructure {
  bool uniform = false;
  int instructions_per_layer = 0;
  int copies_from = -1;  // every layer >= copies_from is a copy of its predecessor (-1: none)
  // Instructions per layer on each queue: the three DMA queues, then matrix, then SFU.
  std::array<int, dma_queue_count + 2> per_layer_in_queue{};
};
LayerStructure analyse_layers(const Program& p);

}  // namespace sim
