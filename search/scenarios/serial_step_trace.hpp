#pragma once
// The timeline of one step that a one-device scenario composes as a sum of phases (the tree SD
// optimiser's draft + verify, the EAGLE dispatcher's head passes + verify + exposed host work):
// the phases one after another on the device's stream or its host thread, as a TaskGraph run on
// the system timeline, so `--trace-out` shows the winner's own step (Perfetto). The trace's
// makespan is the phases' sum: the scenario's own step time, not a second model of it.
#include <string>
#include <vector>

#include "sim/system/timeline.hpp"

namespace search {

struct StepPhase {
  std::string name;      // e.g. "head pass 2 (8 rows)"
  std::string category;  // "draft", "compute", "host"
  double seconds = 0;
  bool on_host = false;  // the host thread's time (not the device's)
};

// The phases in order, each starting when the previous one ends, on `device`'s stream and host.
sim::TraceWriter serial_step_trace(const std::string& device, const std::vector<StepPhase>& phases);

}  // namespace search
