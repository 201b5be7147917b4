#pragma once
// Collectives built from point-to-point sends on the timeline's link lanes (as NCCL's ring
// algorithms are): a ring all-reduce of B bytes over N ranks is a reduce-scatter and an
// all-gather, 2 (N - 1) steps in which every rank sends B / N bytes to its ring successor; an
// all-gather is the second half alone. A rank's send in step s waits for the chunk it received
// in step s - 1, so a slow lane delays the whole ring.
#include <string>
#include <vector>

#include "models/system_spec.hpp"
#include "sim/system/timeline.hpp"

namespace sim {

// Timeline resource of each system lane, by lane index (SystemSpec::lanes).
struct LaneResources {
  std::vector<int> resource_of_lane;
};

// One timeline resource per lane of the system (its links' directed lanes or egress ports), in
// the trace's "links" group.
LaneResources add_lane_resources(TaskGraph& g, const models::SystemSpec& s);

// A point-to-point send of `bytes` from device a to device b after `deps`; returns the task.
int add_send(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes, int a, int b, double bytes,
             std::vector<int> deps, const std::string& name, const std::string& category = "transfer");

// As add_send, but along sim::route when a and b share no link (store and forward: one send per
// hop, each waiting for the previous); InputError when no path joins them.
int add_routed_send(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes, int a, int b, double bytes,
                    std::vector<int> deps, const std::string& name, const std::string& category = "transfer");

// Ring all-reduce / all-gather among `ranks` (device indices, in ring order); `ready[i]` is the
// task after which rank i's input is ready. Returns, per rank, the task after which it holds
// the result (its last receive).
std::vector<int> add_ring_all_reduce(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                     const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                     const std::string& name);
// One-shot all-reduce: every rank pushes its whole buffer to each other rank (N - 1 sends of B
// bytes from its port) and reduces locally when all have arrived: one link latency instead of the
// ring's 2 (N - 1), at (N - 1) B bytes per rank instead of 2 (N - 1) B / N. Needs a link between
// every pair of ranks (a switch). The custom all-reduce kernels of vLLM and TensorRT-LLM and
// NCCL's small-message algorithms exist because the ring's per-step cost dominates small
// tensor-parallel messages (decode activations are tens of KiB).
std::vector<int> add_one_shot_all_reduce(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                         const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                         const std::string& name);
// The all-reduce a tuner would pick: one-shot when every pair of ranks is linked and the link
// model predicts it faster than the ring for `bytes`, else the ring.
std::vector<int> add_all_reduce(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                const std::string& name);
std::vector<int> add_ring_all_gather(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                     const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                     const std::string& name);

}  // namespace sim
