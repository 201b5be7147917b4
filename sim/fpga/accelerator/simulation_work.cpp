#include "sim/fpga/accelerator/simulation_work.hpp"

#include <atomic>

#include "sim/fpga/fpga_accelerator.hpp"

namespace sim {

namespace {

// The work of every run_on_systemc of this process (fpga_simulation_work).
struct WorkCounters {
  std::atomic<long long> runs{0}, instructions{0}, simulated{0};
};
WorkCounters& work_counters() {
  static WorkCounters counters;
  return counters;
}

}  // namespace

void accelerator::record_simulation_work(long long instructions, long long simulated) {
  WorkCounters& work = work_counters();
  work.runs.fetch_add(1, std::memory_order_relaxed);
  work.instructions.fetch_add(instructions, std::memory_order_relaxed);
  work.simulated.fetch_add(simulated, std::memory_order_relaxed);
}

FpgaSimulationWork fpga_simulation_work() {
  const WorkCounters& w = work_counters();
  return {w.runs.load(std::memory_order_relaxed), w.instructions.load(std::memory_order_relaxed),
          w.simulated.load(std::memory_order_relaxed)};
}

}  // namespace sim
