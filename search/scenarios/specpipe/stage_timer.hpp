#pragma once
// What a SpecPipe timeline (specpipe_timeline.hpp) charges its tasks: the timing setup (system,
// target, draft or EAGLE head, engine, context, prune cost) and the StageTimer, which prices a
// pipeline stage's compute, a draft pass, an EAGLE head pass and a link hop on the system's
// devices. Every time comes from the system's one memoised cost layer (sim::SystemCosts): plain
// model forwards (the draft's passes) by shape, a stage's slice of layers and an EAGLE head's pass
// graph as step graphs built here (SystemCosts::step_s), transfers along its routes.
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "models/algorithm_spec.hpp"
#include "models/latency_engine.hpp"
#include "models/model_spec.hpp"
#include "models/system_spec.hpp"
#include "sim/system/system_costs.hpp"

namespace search::specpipe {

// The most pipeline stages the SpecPipe scenario times (paper 002 runs 8).
constexpr int kMaxSpecPipeStages = 64;

// Bytes per token id the last stage broadcasts (int32), and per drafted node sent to stage 0
// (token id and position, int32 each; the node's tree-mask row adds one bit per node of its
// level), as sim/system/system_step counts them.
constexpr double kVerifiedTokenBytes = 4.0;
constexpr double kDraftNodeBytes = 8.0;

struct TimingSetup {
  models::SystemSpec system;         // placement validated for `target`
  models::ModelSpec target;
  std::optional<models::ModelSpec> draft;
  std::string engine = "roofline";
  long long context = 1024;          // tokens in the KV cache (held fixed over the run)
  double prune_s = 5e-3;             // per step and stage; paper 002 §4.2: "pruning takes about ~5 ms"
  // An EAGLE head drafting on the last stage's device (plans with draft_on_last_stage).
  std::optional<models::AlgorithmSpec> head;
  // Whether the timed graphs' tasks carry names (sim::TaskGraph::set_named) and TimedPlan keeps
  // the graph and its run: only a trace needs them, and formatting the names costs about as
  // much as the timeline run.
  bool task_names = true;
};

// Stage, draft and head times from the cost layer. The timer keeps a reference to the setup, which
// must outlive it; the system, engine and draft are read once at construction (a
// sim::SystemCosts of them), so the setup must not change while the timer is in use. Safe to
// share between threads (the cost layer is).
class StageTimer {
 public:
  // InputError when a stage holds more than one device (tensor-parallel stages are not modelled)
  // or the pipeline has more than kMaxSpecPipeStages stages.
  explicit StageTimer(const TimingSetup& s);
  int stages() const { return int(s_.system.stages.size()); }
  int device_of(int stage) const { return s_.system.stages[std::size_t(stage)].devices.front(); }
  // Compute time of `stage` over `tokens` tokens of `batch` sequences (0 tokens: 0); each
  // sequence holds ceil(tokens / batch) of them against its own context (`context`, or the
  // setup's when negative: a serving run's sequences grow where the scenario holds it fixed).
  double stage_s(int stage, int tokens, int batch = 1, long long context = -1) const;
  // What packing `batch` sequences' ragged levels into one step without fused kernels multiplies
  // `stage`'s compute by: 1 + its device stack's ragged_batch_overhead_ratio from two sequences on
  // (SpecPipe-DB), 1 for one.
  double ragged_factor(int stage, int batch) const;
  // One pass of the draft model on the draft device over `tokens` tokens per sequence.
  double draft_s(int tokens, int batch = 1, long long context = -1) const;
  // One pass of the EAGLE head on the last stage's device over `width` tokens per sequence.
  double head_s(int width, int batch = 1) const;
  // Link time from device a to b for `bytes` along the system's route (sim/system/routes.hpp,
  // the path sim::add_routed_send takes); 0 on the same device.
  double hop_s(int a, int b, double bytes) const { return costs_.transfer_s(a, b, bytes); }
  // How activations move from stage device a to b when the sending device's stack copies them
  // itself through the host (models::StagedDeviceCopy: two GPUs of one host without peer access);
  // null where they go over the links (hop_s).
  const models::StagedDeviceCopy* staged_copy(int a, int b) const;
  // Activations from stage device a to b: the staged copy where it applies, else hop_s.
  double activation_hop_s(int a, int b, double bytes) const {
    const models::StagedDeviceCopy* copy = staged_copy(a, b);
    return copy ? copy->seconds(bytes, host_of(a)) : hop_s(a, b, bytes);
  }
  // The host that drives `device` (a staged copy holds the sending device's host thread).
  const models::HostSpec& host_of(int device) const;
  // The device's engine (the cost layer's: one engine per device for every pass timed here).
  const models::LatencyEngine& engine(int device) const { return costs_.engine(device); }
  // The deployment (its memory fit goes through it too) and the setup it was built from.
  const sim::SystemCosts& costs() const { return costs_; }
  const TimingSetup& setup() const { return s_; }

 private:
  const TimingSetup& s_;
  sim::SystemCosts costs_;
  int draft_model_ = -1;  // the draft's id in costs_ (-1: no draft)
  int target_model_ = 0;  // the target's id in costs_
  int head_ = -1;         // the EAGLE head's id in costs_ (-1: none)
};

}  // namespace search::specpipe
