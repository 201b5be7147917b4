#pragma once
// The DRAM controller: the achievable bandwidth (memory_bandwidth_gbs x memory_efficiency, in
// bytes per SM cycle) is shared equally by every kernel that has bytes pending (processor
// sharing: the controller interleaves their requests). Event-driven use, as DRAMSys' controller
// does: when the set of active kernels changes, the time of the next completion is recomputed
// (next_completion) and the simulation jumps there (advance); the clocked reference calls
// advance(1) every cycle instead.
#include <cstdint>
#include <vector>

namespace sim {

class DramController {
 public:
  explicit DramController(double bytes_per_cycle);
  void add(int launch, double bytes);
  void advance(std::int64_t cycles);
  // Cycles until the next kernel's last byte, or -1 when nothing is pending.
  std::int64_t next_completion() const;
  // Launches whose bytes are all transferred (removed from the active set).
  void take_completions(std::vector<int>& out);
  std::size_t active() const { return pending_.size(); }

 private:
  struct Pending {
    int launch;
    double bytes;
  };
  double bytes_per_cycle_;
  double epsilon_;  // bytes below this count as transferred (absorbs rounding of the shares)
  std::vector<Pending> pending_;
};

}  // namespace sim
