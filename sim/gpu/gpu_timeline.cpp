#include "sim/gpu_timeline.hpp"

namespace sim {

std::vector<TimelineEntry> schedule_ops(const GpuKernelModel& model, const std::vector<models::Op>& ops,
                                        int sequences, WaveTiming mode, std::int64_t start) {
  std::vector<TimelineEntry> out;
  std::int64_t now = start;
  for (const auto& op : ops)
    for (const auto& k : model.kernels_for(op, sequences)) {
      TimelineEntry e;
      e.op = op.name;
      e.kernel = k;
      e.timing = model.time(k, mode);
      e.start_cycle = now;
      now += e.timing.total_cycles;  // next event: this kernel's end
      e.end_cycle = now;
      out.push_back(std::move(e));
    }
  return out;
}

}  // namespace sim
