#include "sim/fpga_accelerator.hpp"

#include <systemc>

#include <array>
#include <cstdlib>
#include <mutex>

namespace sim {

namespace {

using sc_core::sc_time;
using sc_core::SC_NS;

// One cycle is one nanosecond of SystemC time; the board clock converts cycles to seconds.
const sc_time cycle(1, SC_NS);

SC_MODULE(Accelerator) {
  sc_core::sc_event program_ready;
  sc_core::sc_event progress;  // some instruction finished

  const Program* program = nullptr;
  SimMode mode = SimMode::event_driven;
  Schedule schedule;
  std::vector<char> done;
  std::array<std::vector<int>, unit_count> queue;  // instruction indices per unit, in order
  sc_time base;

  SC_CTOR(Accelerator) {
    SC_THREAD(sync_unit);
    SC_THREAD(load_unit);
    SC_THREAD(matrix_unit);
    SC_THREAD(sfu_unit);
    SC_THREAD(store_unit);
    SC_THREAD(clock_loop);
  }

  void load(const Program& p, SimMode m) {
    program = &p;
    mode = m;
    const std::size_t n = p.instructions.size();
    schedule = Schedule{};
    schedule.start.assign(n, 0);
    schedule.finish.assign(n, 0);
    done.assign(n, 0);
    for (auto& q : queue) q.clear();
    for (std::size_t i = 0; i < n; ++i) queue[int(p.instructions[i].unit)].push_back(int(i));
  }

  bool deps_done(int i) const {
    for (int d : program->instructions[i].deps)
      if (!done[d]) return false;
    return true;
  }

  long long now_cycles() const { return static_cast<long long>((sc_core::sc_time_stamp() - base) / cycle); }

  void finish(int i) {
    schedule.finish[i] = now_cycles();
    schedule.total_cycles = std::max(schedule.total_cycles, schedule.finish[i]);
    done[i] = 1;
  }

  // Event-driven unit: issue in order; sleep until dependencies finish, then for the duration.
  void run_unit(Unit u) {
    for (;;) {
      wait(program_ready);
      if (mode != SimMode::event_driven) continue;
      for (int i : queue[int(u)]) {
        while (!deps_done(i)) wait(progress);
        schedule.start[i] = now_cycles();
        const long long c = program->instructions[i].cycles;
        if (c > 0) wait(double(c), SC_NS);
        finish(i);
        progress.notify(sc_core::SC_ZERO_TIME);
      }
    }
  }
  void sync_unit() { run_unit(Unit::sync); }
  void load_unit() { run_unit(Unit::load_dma); }
  void matrix_unit() { run_unit(Unit::matrix); }
  void sfu_unit() { run_unit(Unit::sfu); }
  void store_unit() { run_unit(Unit::store_dma); }

  // Clocked reference: every cycle, retire what has finished and issue what can start.
  void clock_loop() {
    for (;;) {
      wait(program_ready);
      if (mode != SimMode::clocked) continue;
      std::array<std::size_t, unit_count> head{};
      std::array<int, unit_count> busy;
      std::array<long long, unit_count> remaining{};
      busy.fill(-1);
      std::size_t retired = 0;
      const std::size_t total = program->instructions.size();
      for (;;) {
        for (bool changed = true; changed;) {
          changed = false;
          for (int u = 0; u < unit_count; ++u)
            if (busy[u] >= 0 && remaining[u] == 0) {
              finish(busy[u]);
              busy[u] = -1;
              ++retired;
              changed = true;
            }
          for (int u = 0; u < unit_count; ++u)
            if (busy[u] < 0 && head[u] < queue[u].size() && deps_done(queue[u][head[u]])) {
              const int i = queue[u][head[u]++];
              schedule.start[i] = now_cycles();
              busy[u] = i;
              remaining[u] = program->instructions[i].cycles;
              changed = true;
            }
        }
        if (retired == total) break;
        wait(cycle);
        for (int u = 0; u < unit_count; ++u)
          if (busy[u] >= 0) --remaining[u];
      }
    }
  }
};

Accelerator& accelerator() {
  static Accelerator* top = [] {
    // SystemC prints a banner to stdout on first use unless told not to; stdout carries CSV.
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    auto* a = new Accelerator("specdse_fpga_accelerator");
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborate; threads park on program_ready
    return a;
  }();
  return *top;
}

}  // namespace

Schedule run_on_systemc(const Program& program, SimMode mode) {
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  Accelerator& a = accelerator();
  a.load(program, mode);
  a.base = sc_core::sc_time_stamp();
  a.program_ready.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start();  // runs until every unit waits for the next program
  return a.schedule;
}

}  // namespace sim
