#pragma once
// Collectives built from point-to-point sends on the timeline's link lanes (as NCCL's ring
// algorithms are): a ring all-reduce of B bytes over N ranks is a reduce-scatter and an
// all-gather, 2 (N - 1) steps in which every rank sends B / N bytes to its ring successor; an
// all-gather is the second half alone. A rank's send in step s waits for the chunk it received
// in step s - 1, so a slow lane delays the whole ring. Which collective a group runs and over
// which transport is sim/system/collective_choice.hpp (add_all_reduce, add_all_gather).
#include <string>
#include <vector>

#include "models/system_spec.hpp"
#include "sim/system/collective_choice.hpp"
#include "sim/system/timeline.hpp"

namespace sim {

// Timeline resource of each system lane, by lane index (SystemSpec::lanes), and the system's link
// between each pair of devices, looked up once per graph: a tensor-parallel step adds ~10^4 sends,
// and SystemSpec::link_between searches the link list.
struct LaneResources {
  std::vector<int> resource_of_lane;
  std::vector<int> link_of_pair;  // devices x devices: index into SystemSpec::links, -1 none
  int devices = 0;
  // s.link_between(a, b) from the index, for the system the lanes were added for; an entry that
  // no longer matches s (its links edited since) falls back to the search.
  const models::SystemLink* link(const models::SystemSpec& s, int a, int b) const;
};

// One timeline resource per lane of the system (its links' directed lanes or egress ports), in
// the trace's "links" group.
LaneResources add_lane_resources(TaskGraph& g, const models::SystemSpec& s);

// A point-to-point send of `bytes` from device a to device b after `deps`; returns the task.
int add_send(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes, int a, int b, double bytes,
             TaskDeps deps, const std::string& name, const std::string& category = "transfer");

// As add_send, but along sim::route when a and b share no link (store and forward: one send per
// hop, each waiting for the previous); InputError when no path joins them.
int add_routed_send(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes, int a, int b, double bytes,
                    TaskDeps deps, const std::string& name, const std::string& category = "transfer");

// One collective call as it ran: what `system` reports per group (its tasks are the graph's
// [first_task, end_task), added together).
struct CollectiveCall {
  std::string op;          // "all-reduce", "all-gather"
  std::vector<int> ranks;
  double bytes = 0;        // per rank (all-reduce) or gathered in all (all-gather)
  CollectiveChoice choice;
  int first_task = 0, end_task = 0;
};

// Ring all-reduce / all-gather of plain link sends among `ranks` (device indices, in ring
// order); `ready[i]` is the task after which rank i's input is ready. Returns, per rank, the
// task after which it holds the result (its last receive).
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
// Two-stage all-reduce (vLLM's two-stage kernel): a reduce-scatter, in which every rank pushes
// each peer its B / N share, then an all-gather, in which every rank pushes its reduced B / N
// to each peer: two flights, 2 (N - 1) B / N bytes per rank. Needs a link between every pair.
std::vector<int> add_two_stage_all_reduce(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                          const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                          const std::string& name);
// NCCL's ring all-reduce (2 (N - 1) steps) or all-gather (N - 1 steps) under protocol
// `protocol` of `nccl`: each step's send occupies its lane for chunk / (transport bandwidth x
// protocol share) and arrives the transport's step latency later (sim::nccl_step); the call's
// base latency delays the first step.
std::vector<int> add_nccl_ring(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                               const models::NcclSpec& nccl, int protocol, const std::vector<int>& ranks, double bytes,
                               const std::vector<int>& ready, const std::string& name, bool all_reduce);
// Runs `choice` (from sim::choose_all_reduce or choose_all_gather) as an all-reduce or an
// all-gather; the call is appended to `log` when one is given. Callers issuing many calls of
// one shape choose once and call this.
std::vector<int> add_collective(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                const CollectiveChoice& choice, bool all_reduce, const std::vector<int>& ranks,
                                double bytes, const std::vector<int>& ready, const std::string& name,
                                std::vector<CollectiveCall>* log = nullptr);
// The all-reduce the ranks' stack runs on this system (sim::choose_all_reduce).
std::vector<int> add_all_reduce(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                const std::string& name, std::vector<CollectiveCall>* log = nullptr);
// The all-gather of `bytes` in all the ranks' stack runs (sim::choose_all_gather).
std::vector<int> add_all_gather(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                const std::string& name, std::vector<CollectiveCall>* log = nullptr);
// Seconds until every rank holds the result of one all-reduce of `bytes` per rank (the one
// add_all_reduce picks), every rank starting at 0 on an otherwise idle system: golden comparisons
// and tests of a collective alone.
double all_reduce_seconds(const models::SystemSpec& s, const std::vector<int>& ranks, double bytes);

std::vector<int> add_ring_all_gather(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                     const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                     const std::string& name);

}  // namespace sim
