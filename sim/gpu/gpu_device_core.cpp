#include "sim/gpu/gpu_device_core.hpp"

#include <algorithm>

namespace sim {

GpuDeviceCore::GpuDeviceCore(const GpuWorkload& workload)
    : workload_(workload),
      records_(workload.streams.size()),
      enqueued_(workload.streams.size(), 0),
      next_(workload.streams.size(), 0),
      current_(workload.streams.size(), -1) {
  std::size_t total = 0;
  for (std::size_t s = 0; s < workload.streams.size(); ++s) {
    records_[s].resize(workload.streams[s].launches.size());
    total += workload.streams[s].launches.size();
  }
  launches_.reserve(total);  // records and kernels are referenced by pointer while running
}

void GpuDeviceCore::enqueue(int stream, std::int64_t now) {
  records_[stream][enqueued_[stream]].enqueue = now;
  ++enqueued_[stream];
}

template <class SmArray>
void GpuDeviceCore::settle(std::int64_t now, SmArray& sms, DramController& dram) {
  for (bool progress = true; progress;) {
    progress = false;
    cta_done_.clear();
    sms.take_completions(cta_done_);
    for (const auto& [id, count] : cta_done_) {
      Running& r = launches_[id];
      r.done_ctas += count;
      if (r.done_ctas == r.kernel->ctas) r.record->compute_end = now;
    }
    bytes_done_.clear();
    dram.take_completions(bytes_done_);
    for (int id : bytes_done_) {
      launches_[id].memory_done = true;
      launches_[id].record->memory_end = now;
    }
    for (std::size_t s = 0; s < current_.size(); ++s) {
      if (current_[s] >= 0) {
        const int id = current_[s];
        Running& r = launches_[id];
        if (!r.dispatched && r.launch_end <= now) {
          // Device-side launch over: CTAs become dispatchable and the DRAM stream begins.
          r.dispatched = true;
          r.record->dispatch = now;
          if (r.kernel->dram_bytes > 0) {
            dram.add(id, r.kernel->dram_bytes);
          } else {
            r.memory_done = true;
            r.record->memory_end = now;
          }
          if (r.kernel->ctas > 0) dispatch_order_.push_back(id);
          else r.record->compute_end = now;
          progress = true;
        }
        const bool finished = r.done_ctas == r.kernel->ctas && r.memory_done;
        if (r.dispatched && finished) {
          r.record->end = now;
          current_[s] = -1;
          progress = true;
        }
      }
      if (current_[s] < 0 && next_[s] < enqueued_[s]) {
        // The stream is idle and its next kernel is in the launch queue: launch it.
        const KernelLaunch& l = workload_.streams[s].launches[next_[s]];
        Running r;
        r.stream = int(s);
        r.kernel = &workload_.kernels[std::size_t(l.kernel)];
        r.record = &records_[s][next_[s]];
        r.record->start = now;
        r.launch_end = now + r.kernel->launch_cycles;
        r.pending_ctas = r.kernel->ctas;
        ++next_[s];
        current_[s] = int(launches_.size());
        launches_.push_back(r);
        progress = true;
      }
    }
    // Hand pending CTAs to the SMs, oldest launch first (the block scheduler drains a grid
    // before the next one's CTAs get the freed slots).
    for (auto it = dispatch_order_.begin(); it != dispatch_order_.end();) {
      Running& r = launches_[*it];
      const std::int64_t placed = sms.place(*it, r.kernel->cta, r.kernel->cta_cycles, r.pending_ctas);
      r.pending_ctas -= placed;
      if (placed > 0 && r.kernel->cta_cycles == 0) progress = true;  // zero-work CTAs retire now
      it = r.pending_ctas == 0 ? dispatch_order_.erase(it) : it + 1;
    }
  }
}

template void GpuDeviceCore::settle<GroupedSmArray>(std::int64_t, GroupedSmArray&, DramController&);
template void GpuDeviceCore::settle<ClockedSmArray>(std::int64_t, ClockedSmArray&, DramController&);

std::int64_t GpuDeviceCore::next_launch_end() const {
  std::int64_t next = -1;
  for (int id : current_)
    if (id >= 0 && !launches_[id].dispatched && (next < 0 || launches_[id].launch_end < next))
      next = launches_[id].launch_end;
  return next;
}

bool GpuDeviceCore::done() const {
  for (std::size_t s = 0; s < current_.size(); ++s)
    if (current_[s] >= 0 || next_[s] < workload_.streams[s].launches.size()) return false;
  return true;
}

DeviceRun GpuDeviceCore::result() const {
  DeviceRun run;
  run.streams = records_;
  for (const auto& stream : records_)
    for (const auto& r : stream) run.end_cycle = std::max(run.end_cycle, r.end);
  // A host that works on after its last launch (StreamPlan::host_after_cycles) ends the run
  // when it outlasts the device.
  for (const auto& plan : workload_.streams) {
    if (plan.host_after_cycles == 0) continue;
    std::int64_t host_end = plan.start_cycle + plan.host_after_cycles;
    for (const auto& l : plan.launches) host_end += l.host_cycles_before;
    run.end_cycle = std::max(run.end_cycle, host_end);
  }
  return run;
}

}  // namespace sim
