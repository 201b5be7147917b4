#include "sim/gpu/gpu_device.hpp"

#include <systemc>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "sim/gpu/gpu_cta_dispatcher.hpp"
#include "sim/gpu/gpu_device_core.hpp"
#include "sim/gpu/gpu_dram_controller.hpp"
#include "sim/gpu/gpu_host_thread.hpp"
#include "sim/gpu/gpu_kernel_alone.hpp"
#include "sim/sc_session.hpp"
#include "models/cycle_range.hpp"
#include "roofline/gpu_stream_schedule.hpp"

namespace sim {

namespace {

using sc_core::sc_time;

// One SM clock cycle is one nanosecond of SystemC time; the GPU clock converts cycles to seconds.
const sc_time sm_cycle(1, sc_core::SC_NS);

std::int64_t cycles_now() { return std::int64_t(sc_core::sc_time_stamp() / sm_cycle); }

SC_MODULE(GpuDevice) {
  const GpuKernelModel* model = nullptr;
  const GpuWorkload* workload = nullptr;
  SimMode mode = SimMode::event_driven;
  std::unique_ptr<GpuDeviceCore> core;
  std::vector<std::unique_ptr<GpuHostThread>> hosts;
  sc_core::sc_event kernel_enqueued;

  SC_HAS_PROCESS(GpuDevice);

  // Event-driven state.
  std::unique_ptr<GroupedSmArray> sms;
  std::unique_ptr<DramController> dram;
  std::int64_t last = 0;

  GpuDevice(sc_core::sc_module_name name, const GpuKernelModel& m, const GpuWorkload& w, SimMode sim_mode)
      : sc_core::sc_module(name), model(&m), workload(&w), mode(sim_mode) {
    core = std::make_unique<GpuDeviceCore>(w);
    if (mode == SimMode::event_driven) {
      sms = std::make_unique<GroupedSmArray>(m.spec());
      dram = std::make_unique<DramController>(m.dram_bytes_per_cycle());
      for (std::size_t s = 0; s < w.streams.size(); ++s) {
        auto h = std::make_unique<GpuHostThread>(sc_core::sc_gen_unique_name("host"));
        h->plan = &w.streams[s];
        h->stream = int(s);
        h->cycle = sm_cycle;
        h->enqueued = &kernel_enqueued;
        h->enqueue = [this](int stream, std::int64_t now) { core->enqueue(stream, now); };
        hosts.push_back(std::move(h));
      }
      SC_METHOD(event_driven_device);
      sensitive << kernel_enqueued;
    } else {
      SC_THREAD(clocked_device);
    }
  }

  // --- event-driven: wake only at the next event ------------------------------------------
  void event_driven_device() {
    const std::int64_t now = cycles_now();
    sms->advance(now - last);
    dram->advance(now - last);
    last = now;
    core->settle(now, *sms, *dram);
    if (core->done()) return;
    std::int64_t next = -1;
    for (std::int64_t t : {core->next_launch_end(),
                           sms->next_completion() < 0 ? -1 : now + sms->next_completion(),
                           dram->next_completion() < 0 ? -1 : now + dram->next_completion()})
      if (t >= 0 && (next < 0 || t < next)) next = t;
    if (next >= 0) next_trigger(double(next - now) * sm_cycle, kernel_enqueued);
    else next_trigger(kernel_enqueued);  // the streams wait for their host threads
  }

  // --- clocked reference: every cycle -------------------------------------------------------
  void clocked_device() {
    ClockedSmArray clocked_sms(model->spec());
    DramController clocked_dram(model->dram_bytes_per_cycle());
    const std::size_t streams = workload->streams.size();
    std::vector<std::size_t> host_next(streams, 0);
    std::vector<std::int64_t> host_countdown(streams, 0);
    for (std::size_t s = 0; s < streams; ++s) {
      const auto& p = workload->streams[s];
      host_countdown[s] = p.start_cycle + (p.launches.empty() ? 0 : p.launches[0].host_cycles_before);
    }
    for (std::int64_t now = 0;; ++now) {
      // Host threads: enqueue every launch whose host time has run out this cycle.
      for (std::size_t s = 0; s < streams; ++s) {
        const auto& launches = workload->streams[s].launches;
        while (host_next[s] < launches.size() && host_countdown[s] == 0) {
          core->enqueue(int(s), now);
          if (++host_next[s] < launches.size()) host_countdown[s] = launches[host_next[s]].host_cycles_before;
        }
      }
      core->settle(now, clocked_sms, clocked_dram);
      if (core->done()) return;
      wait(sm_cycle);
      for (std::size_t s = 0; s < streams; ++s)
        if (host_next[s] < workload->streams[s].launches.size()) --host_countdown[s];
      clocked_sms.tick();
      clocked_dram.advance(1);
    }
  }
};

// One stream, event-driven: no two kernels overlap, so each distinct kernel is timed alone
// (its CTA waves and DRAM stream, gpu_kernel_alone.hpp) and the launches follow the
// host/stream recurrence both engines share (roofline/gpu_stream_schedule.hpp). That is what
// the SystemC model computes for one stream, record for record (tests/sim/test_gpu_systemc.cpp
// compares it with a run of every CTA in SystemC and with the clocked model), without an event
// per host enqueue and kernel end: those were most of a step's simulation time. Empty where a
// kernel never completes alone (a CTA that fits no SM): the SystemC model runs it.
std::optional<DeviceRun> run_one_stream_alone(const GpuKernelModel& model, const GpuWorkload& workload) {
  std::vector<roofline::KernelTiming> timing(workload.kernels.size());
  for (std::size_t k : roofline::launched_kernels(workload)) {
    const GpuKernel& kernel = workload.kernels[k];
    const KernelAloneRun alone = run_kernel_alone(model, kernel);
    if (!alone.completes) return std::nullopt;
    roofline::KernelTiming& t = timing[k];
    t.launch_cycles = kernel.launch_cycles;
    t.compute_cycles = alone.compute_cycles;
    t.memory_cycles = alone.memory_cycles;
    t.total_cycles = models::checked_add(t.launch_cycles, std::max(t.compute_cycles, t.memory_cycles), "GPU model: a kernel");
  }
  return roofline::run_one_stream(workload, timing);
}

}  // namespace

DeviceRun run_gpu_device(const GpuKernelModel& model, const GpuWorkload& workload, SimMode mode) {
  if (mode == SimMode::event_driven && workload.streams.size() == 1)
    if (std::optional<DeviceRun> run = run_one_stream_alone(model, workload)) return std::move(*run);
  // A fresh SystemC context per run (sim/sc_session.hpp): any number of runs per process.
  ScSession session;
  auto device = std::make_unique<GpuDevice>("specdse_gpu", model, workload, mode);
  session.run();
  return device->core->result();
}

}  // namespace sim
