#pragma once
// The instruction stream of a FlightLLM-like accelerator for one op group (a decoder layer or
// the tail): LOAD (DMA from HBM/DDR into an on-chip buffer), MATRIX (matrix engine), MISC (SFU),
// STORE (DMA back to memory) and SYNC (layer barrier / instruction fetch), each with the
// instructions it depends on. Units issue their instructions in program order; an instruction
// starts once its unit is free and its dependencies have finished.
#include <string>
#include <vector>

namespace sim {

enum class Unit { sync = 0, load_dma = 1, matrix = 2, sfu = 3, store_dma = 4 };
constexpr int unit_count = 5;
const char* to_string(Unit u);

struct Instruction {
  Unit unit = Unit::matrix;
  long long cycles = 0;     // integer duration on its unit
  std::vector<int> deps;    // indices of earlier instructions
  int op = -1;              // index of the op in the group (-1: group-level, e.g. SYNC)
};

struct Program {
  std::vector<Instruction> instructions;
  std::vector<std::string> op_names;
};

struct Schedule {
  std::vector<long long> start, finish;
  long long total_cycles = 0;
};

// Reference list scheduler (no SystemC): the same issue rules, solved in one pass. The SystemC
// models must reproduce it exactly; tests compare all three.
Schedule schedule_directly(const Program& p);

}  // namespace sim
