#pragma once
// plan's memory headroom of a candidate: what every device of the system holds for it (the
// target's stages, a draft model on its device, a draft head beside the target: sim/system/
// memory_fit.hpp's accounting, which the scenarios' own feasibility checks use), and the device
// memory left on the fullest device. A workload's `memory_headroom_gib` asks for at least that
// much free (for other requests' KV caches, fragmentation, a second model).
#include <string>

#include "search/plan/plan_scheme.hpp"

namespace search {

struct MemoryHeadroom {
  bool checked = false;     // false: no device states a capacity
  double min_free_bytes = 0;
  std::string device;       // the fullest device
};

MemoryHeadroom memory_headroom(const PlanSetup& s, const PlanCandidate& c);

}  // namespace search
