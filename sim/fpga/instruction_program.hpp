#pragma once
// The instruction stream of a FlightLLM-like accelerator: LOAD transfers on the memory
// controller (three DMA queues: weights; activations with the KV cache; attention scores),
// STORE transfers on the store port (the fourth DMA queue), MATRIX work on the matrix engine
// and MISC work on the SFU, each with the instructions it depends on.
//
// Issue rules (shared by the direct scheduler, the event-driven SystemC model and the clocked
// SystemC model, which must agree cycle for cycle):
//  - the matrix engine, the SFU and the store port issue their instructions in program order,
//    each as soon as the unit is free and its dependencies have finished;
//  - the memory controller serves one load at a time (paper 000's accelerator loads weights
//    and activations through one DMA stream, so loads serialise); each load queue is in
//    program order, and when the controller is free it starts the ready queue head with the
//    lowest program index. Stores leave over their own channels (tensor_mapping.stores)
//    beside the loads;
//  - every instruction takes at least one cycle.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace sim {

enum class Unit { memory = 0, matrix = 1, sfu = 2, store = 3 };
constexpr int unit_count = 4;
// weights, kv (activations and the KV cache) and scores (attention scores loaded back after
// their store: a queue of their own, so that a score load waiting for its store does not hold
// up the K/V prefetch behind it) are the memory controller's load queues; store is the store
// port's.
enum class DmaQueue { weights = 0, kv = 1, scores = 2, store = 3 };
constexpr int dma_queue_count = 4;
constexpr int load_queue_count = 3;
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
    if (d >= 0) add_any(d);
  }
  // A dependency of a compact program's template layer, negative where it lies in a layer
  // before the template (Program, compact form).
  void add_any(int d) {
    if (count_ == ids_.size()) throw std::logic_error("instruction with more than three dependencies");
    ids_[count_++] = d;
  }
  const int* begin() const { return ids_.data(); }
  const int* end() const { return ids_.data() + count_; }

 private:
  std::array<int, 3> ids_{};
  std::size_t count_ = 0;
};

// Quotient by a fixed divisor through a floating-point reciprocal and an exact correction: the
// simulation loop maps every index of a compact program's implicit layers to its stored
// instruction, and a hardware division per dependency check was a large part of its time.
class FastDivisor {
 public:
  FastDivisor() = default;
  explicit FastDivisor(std::size_t d) : d_(d == 0 ? 1 : d), inverse_(1.0 / double(d_)) {}
  std::size_t divisor() const { return d_; }
  std::size_t quotient(std::size_t n) const {
    std::size_t q = std::size_t(double(n) * inverse_);
    while (q > 0 && q * d_ > n) --q;
    while ((q + 1) * d_ <= n) ++q;
    return q;
  }

 private:
  std::size_t d_ = 1;
  double inverse_ = 1.0;
};

struct Instruction {
  Unit unit = Unit::matrix;
  DmaQueue queue = DmaQueue::weights;  // memory and store-port instructions only
  long long cycles = 1;
  Dependencies deps;      // indices of earlier instructions
  int op = -1;            // op index within the layer (-1: layer overhead)
  int layer = 0;          // which copy of the layer (multi-layer windows)
};

struct Program {
  std::vector<Instruction> instructions;
  std::vector<std::string> op_names;
  int layers = 1;
  // Compact form (ProgramForm::compact): every layer of a step does the same work, and layer l
  // is one "template" layer shifted by l layers, except that a dependency landing before the
  // program's start is none (a buffer slot not yet used, or no previous compute). Only the
  // template is stored: materialised_layers = 1, period_start = 0, and its dependencies on
  // earlier layers are negative indices (layer 0 drops them, later layers keep those that land
  // at or after instruction 0). Instruction i is then the stored instruction i mod period_size(),
  // `copy` = i / period_size() layers on. The event-driven model runs compact programs without
  // expanding them; everything that needs the full schedule expands first.
  // Full form: every layer stored, materialised_layers = 0, no negative dependency.
  int materialised_layers = 0;
  std::size_t period_start = 0;
  FastDivisor period;  // by period_size()

  bool compact() const { return materialised_layers > 0 && materialised_layers < layers; }
  std::size_t period_size() const { return instructions.size() - period_start; }
  // Instructions including the implicit copies.
  std::size_t size() const {
    return compact() ? period_start + period_size() * std::size_t(layers - materialised_layers + 1)
                     : instructions.size();
  }
  // Instruction i is the stored instruction `index`, `copy` layers on (0 for a stored one).
  struct Source {
    std::size_t index;
    std::size_t copy;
  };
  Source source(std::size_t i) const {
    if (i < instructions.size()) return {i, 0};
    const std::size_t off = i - period_start, copy = period.quotient(off);
    return {period_start + off - copy * period.divisor(), copy};
  }
  // Index of dependency `dep` (a stored one, from instructions[of.index].deps) of the
  // instruction with source `of`, or -1 where it lands before the program's start (none).
  long long dependency_index(int dep, const Source& of) const {
    const long long i = (long long)dep + (long long)(of.copy * period_size());
    return i < 0 ? -1 : i;
  }
  // The source of that dependency (dependency_index(dep, of) >= 0): source() of its index
  // without a division for the dependencies within the instruction's own layer or the one
  // before (nearly all of them); the simulation loop asks this for every dependency it checks.
  Source dependency_source(int dep, const Source& of) const {
    const long long d = dep;
    if (of.copy == 0) return {std::size_t(d), 0};
    const long long p = (long long)period_size(), i = d + (long long)of.copy * p;
    if (i < (long long)instructions.size()) return {std::size_t(i), 0};
    if (d >= (long long)period_start) return {std::size_t(d), of.copy};
    if (d + p >= (long long)period_start) return {std::size_t(d + p), of.copy - 1};
    return source(std::size_t(i));
  }
  // The source of instruction i + 1, from that of i (no division: the fast-forwards' checks
  // walk the program instruction by instruction).
  void advance(Source& s) const {
    if (++s.index == instructions.size() && compact()) {
      s.index = period_start;
      ++s.copy;
    }
  }
  // The dependencies of the instruction with source s as program indices, those before the
  // program's start dropped (Program::at's, without copying the instruction).
  struct Dependents {
    std::array<long long, 3> ids{};
    int count = 0;
    const long long* begin() const { return ids.data(); }
    const long long* end() const { return ids.data() + count; }
    bool holds(long long d) const {
      for (long long x : *this)
        if (x == d) return true;
      return false;
    }
  };
  Dependents dependencies(const Source& s) const {
    Dependents out;
    for (int d : instructions[s.index].deps)
      if (const long long i = dependency_index(d, s); i >= 0) out.ids[std::size_t(out.count++)] = i;
    return out;
  }
  // Whether the instruction with source `later` does the work of the one with source `earlier`
  // with every dependency `shift` instructions on (repeats_shifted on the expanded program).
  bool repeats(const Source& later, const Source& earlier, long long shift) const {
    const Instruction &a = instructions[later.index], &b = instructions[earlier.index];
    if (a.unit != b.unit || a.queue != b.queue || a.cycles != b.cycles) return false;
    const Dependents x = dependencies(later), y = dependencies(earlier);
    if (x.count != y.count) return false;
    for (int k = 0; k < x.count; ++k)
      if (x.ids[std::size_t(k)] != y.ids[std::size_t(k)] + shift) return false;
    return true;
  }
  // Instruction i with its dependencies and layer shifted (a copy for implicit ones), the
  // dependencies before the program's start dropped.
  Instruction at(std::size_t i) const;
  // The same program with every layer stored.
  Program expanded() const;
};

struct Schedule {
  std::vector<long long> start, finish;
  long long total_cycles = 0;
  // Layers the event-driven model did not simulate because it proved they repeat exactly
  // (their times are filled in by shifting the repeating period); 0 for the other schedulers.
  int fast_forwarded_layers = 0;
  // Instructions the chunk fast-forward skipped inside ops (repeating chunks of one op), and
  // how many jumps it made; 0 for the other schedulers.
  long long fast_forwarded_chunk_instructions = 0;
  int chunk_jumps = 0;
  // Instructions the SystemC model issued one by one (the rest were fast-forwarded): the work
  // a step costs, independent of the machine's speed (0 for the direct scheduler).
  long long simulated_instructions = 0;
  // Finish time of each layer copy (max over its instructions).
  std::vector<long long> layer_finish(const Program& p) const;
};

// Reference scheduler without SystemC: the same rules as a plain discrete-event loop.
Schedule schedule_directly(const Program& p);

// One unit's (or DMA queue's) instructions in program order. For a compact program the template
// layer's instructions are listed and the implicit layers' are computed: the template's entries
// shifted by one layer per copy.
class InstructionQueue {
 public:
  std::size_t size() const { return listed_.size() + per_copy_ * copies_; }
  bool empty() const { return size() == 0; }
  int operator[](std::size_t pos) const {
    if (pos < listed_.size()) return listed_[pos];
    const std::size_t j = pos - listed_.size(), copy = per_copy_divisor_.quotient(j);
    return listed_[listed_.size() - per_copy_ + (j - copy * per_copy_)] + int((copy + 1) * shift_);
  }
  // Entry `pos` with its source (Program::source of operator[](pos)), from one division.
  struct Entry {
    int instruction;
    std::size_t index, copy;  // Program::Source
  };
  Entry entry(std::size_t pos) const {
    if (pos < listed_.size()) return {listed_[pos], std::size_t(listed_[pos]), 0};
    const std::size_t j = pos - listed_.size(), copy = per_copy_divisor_.quotient(j);
    const int stored = listed_[listed_.size() - per_copy_ + (j - copy * per_copy_)];
    return {stored + int((copy + 1) * shift_), std::size_t(stored), copy + 1};
  }

 private:
  friend struct UnitQueues;
  std::vector<int> listed_;
  std::size_t per_copy_ = 0;  // entries in the period layer
  FastDivisor per_copy_divisor_;
  std::size_t copies_ = 0;    // implicit copies of the period layer
  std::size_t shift_ = 0;     // instructions per layer
};

// Queue index of an instruction: the four DMA queues (loads on the memory controller, stores
// on the store port), then matrix, then SFU.
inline int queue_index(const Instruction& in) {
  return in.unit == Unit::memory || in.unit == Unit::store ? int(in.queue)
                                                           : dma_queue_count + (in.unit == Unit::matrix ? 0 : 1);
}

// Per-queue program-order lists of instruction indices (memory queues, matrix, sfu), and each
// instruction's position in its queue.
struct UnitQueues {
  InstructionQueue dma[dma_queue_count];
  InstructionQueue matrix, sfu;
  explicit UnitQueues(const Program& p);
  const InstructionQueue& queue(int k) const {
    return k < dma_queue_count ? dma[k] : k == dma_queue_count ? matrix : sfu;
  }
  // Position in its queue k (queue_index) of the instruction with source s.
  std::size_t position(const Program::Source& s, int k) const {
    return std::size_t(slots_[s.index].position) + s.copy * queue(k).per_copy_;
  }
  // Where a stored instruction sits, in 8 bytes: the simulation loop asks this of every
  // dependency it checks, and reading the 48-byte Instruction for it was a cache miss each.
  struct Slot {
    int position;        // in its queue (the stored part)
    std::int8_t queue;   // queue_index
    std::int8_t unit;    // Unit
  };
  const Slot& slot(std::size_t stored) const { return slots_[stored]; }
  std::size_t per_copy(int k) const { return queue(k).per_copy_; }

 private:
  std::vector<Slot> slots_;  // stored instructions only
};

// How a multi-layer program repeats, for the event-driven model's exact layer fast-forward
// (accelerator/layer_fast_forward.hpp). Layers are "uniform" when every layer has the same
// instruction count and the same unit, queue, cycles and op at each position; layer l is a "copy"
// of layer l - 1 when, in addition, every dependency is the previous layer's shifted by one layer
// (layer 0's buffer slots start empty, so its loads lack the ring dependencies the later layers
// have).
struct LayerStructure {
  bool uniform = false;
  int instructions_per_layer = 0;
  int copies_from = -1;  // every layer >= copies_from is a copy of its predecessor (-1: none)
  // A compact program's first layer that keeps every dependency of the template (the layers
  // before it drop those landing before the program's start); 0 for a full program. From it on,
  // the implicit layers repeat the template's RepeatingRuns exactly.
  int complete_from = 0;
  // Instructions per layer on each queue: the DMA queues, then matrix, then SFU.
  std::array<int, dma_queue_count + 2> per_layer_in_queue{};
};
LayerStructure analyse_layers(const Program& p);

// Whether instruction `later` does the work of `earlier` (unit, DMA queue, cycles) with every
// dependency `shift` instructions on: the two behave alike once their dependencies do.
inline bool repeats_shifted(const Instruction& later, const Instruction& earlier, long long shift) {
  if (later.unit != earlier.unit || later.queue != earlier.queue || later.cycles != earlier.cycles) return false;
  const int *x = later.deps.begin(), *y = earlier.deps.begin();
  if (later.deps.end() - x != earlier.deps.end() - y) return false;
  for (; x != later.deps.end(); ++x, ++y)
    if ((long long)*x != (long long)*y + shift) return false;
  return true;
}

// Runs of repeating instructions inside a layer, for the event-driven model's chunk fast-forward
// (accelerator/chunk_fast_forward.hpp): an op streams its weights (and its K/V) chunk by chunk, and
// past the first buffer's worth every chunk's instructions repeat the previous chunk's, shifted.
// Stored instruction j repeats with stride s when repeats_shifted(j, j - s, s); a run is a maximal
// stretch of instructions that repeat with one stride. The runs are a hint: where to look for a
// repeating simulated state, and which queue heads to key relative to the instruction being issued.
// The jump itself checks, instruction by instruction, that what it skips repeats.
struct RepeatingRuns {
  struct Run {
    int begin = 0, end = 0;  // stored indices [begin, end): each repeats the one `stride` before
    int stride = 0;
  };
  std::vector<Run> runs;
  std::vector<int> run_of;  // per stored instruction: its run (index into runs), or -1
  // Strides tried, and the shortest run worth keying states in (in strides): a chunk of an op
  // is at most a weight load, an activation load and a compute, an attention chunk about seven
  // instructions; a run shorter than a buffer's worth of chunks has nothing to skip.
  static constexpr int max_stride = 8;
  static constexpr int min_strides = 8;
};
RepeatingRuns analyse_repeating_runs(const Program& p);

}  // namespace sim
