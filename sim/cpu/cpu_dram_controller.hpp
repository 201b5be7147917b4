#pragma once
// The CPU's DRAM controller: one bandwidth (bytes per core cycle, at the calibrated efficiency)
// shared by the cores that are streaming. It grants max-min fair shares: a core that computes
// more slowly than its share would feed it takes only its demand, and the rest is split evenly
// among the others (water-filling). Shares change only when a core starts or finishes, so the
// device recomputes them at those events and never per cycle.
#include <vector>

#include "sim/cpu/cpu_core_model.hpp"

namespace sim {

class CpuDramController {
 public:
  explicit CpuDramController(double bytes_per_cycle) : bytes_per_cycle_(bytes_per_cycle) {}
  // Grants every unfinished streaming core its share and re-anchors all unfinished cores at `now`.
  void allocate(std::vector<CpuCore>& cores, long long now) const;
  double bytes_per_cycle() const { return bytes_per_cycle_; }

 private:
  double bytes_per_cycle_;
};

}  // namespace sim
