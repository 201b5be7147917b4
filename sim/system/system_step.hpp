#pragma once
// One decode step of a system on the timeline: the draft (if placed) drafts x tokens on its
// device and sends them to the first pipeline stage; each stage runs its layers on its device
// (a tensor-parallel group runs every layer as an attention half and an MLP half, each
// followed by a ring all-reduce over the group's links); activations move stage to stage over
// the links; the last stage runs the LM head and sends the verified tokens back to the draft.
// Device times come from the device engines (roofline or SystemC, per device, with the
// device's software stack); link times from the link model; memory from memory_fit.
#include <optional>
#include <string>
#include <vector>

#include "models/model_spec.hpp"
#include "models/system_spec.hpp"
#include "sim/system/memory_fit.hpp"
#include "sim/system/timeline.hpp"

namespace sim {

struct SystemQuery {
  models::ModelSpec target;
  std::optional<models::ModelSpec> draft;  // a standalone draft model on the draft device
  int x = 1;                               // tokens verified per sequence in the step
  long long context = 0;
  int batch = 1;
  std::string engine = "roofline";
};

struct DeviceStep {
  std::string device, hardware, stack, role;
  double busy_s = 0;      // compute tasks on the device in this step
  DeviceMemory memory;
};

struct LaneStep {
  std::string lane;
  std::string link;       // link type name
  double bytes = 0;
  long long messages = 0;
  double busy_s = 0;
};

struct SystemStep {
  std::vector<DeviceStep> devices;
  std::vector<LaneStep> lanes;
  TaskGraph graph;
  TimelineRun run;
  double step_s = 0;       // draft + pipelined target pass + return of the verified tokens
  double target_s = 0;     // first stage start to last stage end
  bool feasible = true;    // every device's memory fits
};

SystemStep simulate_system_step(models::SystemSpec system, const SystemQuery& query);

// The model one rank of a tensor-parallel group holds: heads, KV heads, MLP width and
// vocabulary divided by `tp` (KV heads replicated when fewer than tp). InputError when the
// attention heads do not divide.
models::ModelSpec tensor_parallel_shard(const models::ModelSpec& m, int tp, const std::string& where);

}  // namespace sim
