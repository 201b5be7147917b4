#include "sim/instruction_program.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace sim {

const char* to_string(Unit u) {
  switch (u) {
    case Unit::sync: return "sync";
    case Unit::load_dma: return "load_dma";
    case Unit::matrix: return "matrix";
    case Unit::sfu: return "sfu";
    case Unit::store_dma: return "store_dma";
  }
  return "?";
}

Schedule schedule_directly(const Program& p) {
  Schedule s;
  const std::size_t n = p.instructions.size();
  s.start.assign(n, 0);
  s.finish.assign(n, 0);
  std::array<long long, unit_count> unit_free{};
  for (std::size_t i = 0; i < n; ++i) {
    const Instruction& in = p.instructions[i];
    long long t = unit_free[int(in.unit)];
    for (int d : in.deps) {
      if (d < 0 || std::size_t(d) >= i) throw std::logic_error("instruction depends on a later one");
      t = std::max(t, s.finish[d]);
    }
    s.start[i] = t;
    s.finish[i] = t + in.cycles;
    unit_free[int(in.unit)] = s.finish[i];
    s.total_cycles = std::max(s.total_cycles, s.finish[i]);
  }
  return s;
}

}  // namespace sim
