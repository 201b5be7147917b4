#include "sim/cpu/cpu_device.hpp"

#include <systemc>

#include <algorithm>
#include <exception>
#include <memory>

#include "models/cycle_range.hpp"
#include "sim/cpu/cpu_core_model.hpp"
#include "sim/cpu/cpu_dram_controller.hpp"
#include "sim/sc_session.hpp"

namespace sim {

namespace {

using sc_core::SC_NS;
using sc_core::sc_time;

// One core cycle is one nanosecond of SystemC time; the CPU clock converts cycles to seconds.
const sc_time core_cycle(1, SC_NS);

SC_MODULE(CpuDevice) {
  sc_core::sc_event start;
  const std::vector<roofline::CpuKernel>* regions = nullptr;
  SimMode mode = SimMode::event_driven;
  std::vector<long long> cycles;  // per region

  SC_HAS_PROCESS(CpuDevice);
  // The clocked reference's thread exists only in clocked mode (a coroutine stack per run costs
  // page faults; the event-driven device is a method).
  CpuDevice(sc_core::sc_module_name name, SimMode sim_mode) : sc_core::sc_module(name), mode(sim_mode) {
    SC_METHOD(event_driven);
    sensitive << start;
    dont_initialize();
    if (mode == SimMode::clocked) SC_THREAD(clocked);
  }

  long long now() const { return static_cast<long long>(sc_core::sc_time_stamp() / core_cycle); }

  // --- shared by both modes -------------------------------------------------------------
  std::vector<CpuCore> cores;
  std::unique_ptr<CpuDramController> dram;
  long long region_start = 0;

  // Deals region r's items to the cores at cycle t and shares the bandwidth.
  void begin_cores(std::size_t r, long long t) {
    cores = deal_to_cores((*regions)[r]);
    dram = std::make_unique<CpuDramController>((*regions)[r].dram_bytes_per_cycle);
    dram->allocate(cores, t);
  }
  // Ends the phases finished by cycle t (a core retires, or a packing core starts computing);
  // re-shares the bandwidth if any did. Returns whether any core is still working.
  bool retire_finished(long long t) {
    bool changed = false, working = false;
    for (auto& c : cores)
      if (!c.done()) {
        if (c.finished_at(t)) {
          working |= !c.finish_phase(t);
          changed = true;
        } else {
          working = true;
        }
      }
    if (changed && working) dram->allocate(cores, t);
    return working;
  }
  bool any_working() const {
    return std::any_of(cores.begin(), cores.end(), [](const CpuCore& c) { return !c.done(); });
  }

  // --- event-driven ---------------------------------------------------------------------
  enum class Phase { idle, overhead, running };
  Phase phase = Phase::idle;
  std::size_t region = 0;

  // A config error raised inside a SystemC process (a count beyond the engine's range) would
  // reach the kernel as an uncaught exception; it is kept here, the process schedules nothing
  // more (so the simulation runs out of events), and simulate_cpu_regions rethrows it to the
  // caller as the InputError it is.
  std::exception_ptr failure;

  void event_driven() {
    try {
      event_driven_step();
    } catch (...) {
      failure = std::current_exception();
    }
  }

  void event_driven_step() {
    if (mode != SimMode::event_driven) return;
    const long long t = now();
    for (;;) {
      if (region >= regions->size()) return;  // all regions done: no further events
      const auto& k = (*regions)[region];
      if (phase == Phase::idle) {
        region_start = t;
        if (k.overhead_cycles > 0) {
          phase = Phase::overhead;
          next_trigger(double(k.overhead_cycles), SC_NS);
          return;
        }
        phase = Phase::overhead;  // no fork/join cost: start the cores in this activation
      }
      bool working;
      if (phase == Phase::overhead) {
        begin_cores(region, t);
        phase = Phase::running;
        working = any_working();
      } else {
        working = retire_finished(t);
      }
      if (working) {
        long long next = -1;
        for (const auto& c : cores)
          if (!c.done()) next = next < 0 ? c.finish_time() : std::min(next, c.finish_time());
        next_trigger(double(next - t), SC_NS);  // the next core to finish
        return;
      }
      cycles[region] = t - region_start;
      ++region;
      phase = Phase::idle;
    }
  }

  // --- clocked reference ----------------------------------------------------------------
  void clocked() {
    try {
      clocked_run();
    } catch (...) {
      failure = std::current_exception();
    }
  }

  void clocked_run() {
    wait(start);  // the thread exists only in clocked mode (the constructor)
    for (std::size_t r = 0; r < regions->size(); ++r) {
      region_start = now();
      for (long long i = 0; i < (*regions)[r].overhead_cycles; ++i) wait(core_cycle);  // fork/join
      begin_cores(r, now());
      bool working = any_working();
      while (working) {
        wait(core_cycle);
        working = retire_finished(now());  // every core, every cycle
      }
      cycles[r] = now() - region_start;
    }
  }
};

}  // namespace

std::vector<long long> simulate_cpu_regions(const std::vector<roofline::CpuKernel>& regions, SimMode mode) {
  if (regions.empty()) return {};
  // A region whose busiest core, at its smallest fair share of the DRAM (1 / threads of the
  // op's rate), would run past what the engine counts is refused here, before SystemC starts:
  // an error thrown from inside a SystemC process is the fallback, not the rule.
  for (const auto& k : regions)
    if (k.item_dram_bytes > 0)
      models::checked_cycles(double(k.items_of_core(0)) * k.item_dram_bytes * k.threads / k.dram_bytes_per_cycle,
                             "CPU model: a kernel at its share of the DRAM");
  // A fresh SystemC context per call (sim/sc_session.hpp): the device module lives in a
  // unique_ptr declared after the session so it is destroyed first.
  ScSession session;
  auto device = std::make_unique<CpuDevice>("specdse_cpu", mode);
  device->regions = &regions;
  device->cycles.assign(regions.size(), 0);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborate; processes park on `start`
  device->start.notify(sc_core::SC_ZERO_TIME);
  session.run();
  if (device->failure) std::rethrow_exception(device->failure);
  return device->cycles;
}

}  // namespace sim
