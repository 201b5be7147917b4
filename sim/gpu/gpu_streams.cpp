#include "sim/gpu/gpu_streams.hpp"

#include <fmt/format.h>

#include <cmath>

#include "models/config_error.hpp"
#include "sim/gpu/gpu_device.hpp"

namespace sim {

std::vector<GpuStreamResult> run_gpu_streams(const models::HardwareSpec& hw, const std::vector<GpuStreamWork>& streams,
                                             SimMode mode) {
  if (!hw.gpu) throw models::InputError(fmt::format("{}: kind: expected gpu for GPU streams", hw.source_file));
  const GpuKernelModel model(*hw.gpu);
  const double hz = model.clock_hz();
  GpuWorkload workload;
  for (const auto& s : streams) {
    if (!(s.start_s >= 0) || !std::isfinite(s.start_s))
      throw models::InputError(fmt::format("GPU stream '{}': start_s: expected >= 0 seconds, got {}", s.name, s.start_s));
    if (s.repeats < 1)
      throw models::InputError(fmt::format("GPU stream '{}': repeats: expected >= 1, got {}", s.name, s.repeats));
    StreamPlan plan = lower_step(model, hw.stack, hw.host, s.graph, s.name, std::llround(s.start_s * hz), workload);
    // Every repeat launches the same kernels with the same host costs (per-step cost included).
    const std::size_t one = plan.launches.size();
    plan.launches.reserve(one * std::size_t(s.repeats));
    for (int r = 1; r < s.repeats; ++r)
      for (std::size_t i = 0; i < one; ++i) plan.launches.push_back(plan.launches[i]);
    workload.streams.push_back(std::move(plan));
  }
  const DeviceRun run = run_gpu_device(model, workload, mode);
  std::vector<GpuStreamResult> out;
  for (std::size_t i = 0; i < streams.size(); ++i) {
    GpuStreamResult r;
    r.name = streams[i].name;
    r.start_s = streams[i].start_s;
    r.kernels = std::int64_t(workload.streams[i].launches.size());
    std::int64_t end = workload.streams[i].start_cycle;
    for (const auto& k : run.streams[i]) end = std::max(end, k.end);
    r.end_s = double(end) / hz;
    out.push_back(r);
  }
  return out;
}

}  // namespace sim
