#include "sim/gpu_systemc_stream.hpp"

#include <systemc>

namespace sim {

namespace {

SC_MODULE(GpuStreamModule) {
  const std::vector<TimelineEntry>* kernels = nullptr;
  sc_core::sc_time cycle;
  std::vector<std::int64_t> ends;

  SC_CTOR(GpuStreamModule) { SC_THREAD(run); }

  void run() {
    for (const auto& k : *kernels) {
      wait(double(k.timing.launch_cycles) * cycle);  // launch / previous kernel's tail
      // SM waves and DRAM streaming proceed concurrently; the kernel ends with the later.
      const std::int64_t body = std::max(k.timing.compute_cycles, k.timing.memory_cycles);
      wait(double(body) * cycle);
      ends.push_back(std::llround(sc_core::sc_time_stamp() / cycle));
    }
  }
};

}  // namespace

SystemCStreamResult run_gpu_stream_systemc(const std::vector<TimelineEntry>& kernels, double clock_mhz) {
  // The period is rounded to whole picoseconds (SystemC's default resolution); every wait is
  // a whole number of such periods, so dividing the end time by the period gives exact cycles.
  GpuStreamModule stream("gpu_stream");
  stream.kernels = &kernels;
  stream.cycle = sc_core::sc_time(1e6 / clock_mhz, sc_core::SC_PS);
  sc_core::sc_start();
  SystemCStreamResult r;
  r.kernel_end_cycles = stream.ends;
  r.end_cycle = stream.ends.empty() ? 0 : stream.ends.back();
  return r;
}

}  // namespace sim
