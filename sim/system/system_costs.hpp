#pragma once
// The one cost layer of a system's scenarios: the forward time of a model on one of the
// system's devices (that device's engine, roofline or SystemC, with its software stack) and the
// time of a transfer between two devices along the system's route (sim/system/routes.hpp).
// Every step graph's time goes through one memo, keyed by (device class, graph fingerprint), so a
// scenario that asks for the same step a thousand times (a decode loop, a sweep over windows,
// several methods on one system, eight identical pipeline stages, a head's passes) pays for it
// once. Safe to share between threads.
#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "models/algorithm_spec.hpp"
#include "models/latency_engine.hpp"
#include "models/model_spec.hpp"
#include "models/operator_graph.hpp"
#include "models/system_spec.hpp"
#include "sim/system/memory_fit.hpp"

namespace sim {

// One forward pass: models::StepShape (`tokens` new tokens per sequence for `batch` sequences
// over a KV cache of `context` tokens, chain-causal or tree-masked, with or without the LM head).
using ForwardShape = models::StepShape;

// One stream of co-located work: `repeats` forwards of model `model_id` of one shape, back to
// back (a draft's passes within one iteration).
struct Work {
  int model_id = 0;
  ForwardShape shape;
  int repeats = 1;
};

struct SystemQuery;  // sim/system/system_step.hpp

// A whole system step's times and per-rank bytes (the scalar fields of system_step.hpp's
// SystemStep): what a scenario keeps of a step it asks for again.
struct SystemStepTimes {
  double step_s = 0, target_s = 0, head_s = 0, lead_compute_s = 0, lead_wait_s = 0;
  double rank_weight_bytes = 0, rank_kv_read_bytes = 0;
  double stage_period_s = 0;  // SystemStep::stage_period_s: the busiest stage's hold on the step
};

class SystemCosts {
 public:
  // `engine`: a latency engine name (models/engine_registry.hpp) used for every device.
  SystemCosts(models::SystemSpec system, std::string engine);

  const models::SystemSpec& system() const { return system_; }
  const std::string& engine_name() const { return engine_; }
  // The device's engine as the deployment sees it: every step it costs goes through step_s's
  // memo (a step with a per-op breakdown is computed afresh: the memo keeps seconds only). Built
  // on first use; every call returns the same one, and devices of one class share it. Callers
  // that take a LatencyEngine (the optimiser, the tree and window searches, a draft placement)
  // get their forwards memoised and counted here.
  const models::LatencyEngine& engine(int device) const;
  // Devices expanded from one `devices:` entry (same group, hardware file and software stack)
  // are one class: the lowest such device index. Their engines are built from identical specs
  // and are deterministic, so they share one engine and one memo (InputError for a bad index).
  int device_class(int device) const;

  // Registers a model whose forwards will be costed and returns its id. Registering the same
  // name and source twice returns the first id: a model is known by what it is called and
  // where it came from (a quantised or sharded variant carries its own name).
  int add_model(const models::ModelSpec& model);
  const models::ModelSpec& model(int id) const { return *models_.at(std::size_t(id)); }

  // Seconds of one forward of model `model_id` on `device`: its verify graph through step_s (an
  // index by shape in front of step_s's memo, so a decode loop does not rebuild the graph).
  double forward_s(int device, int model_id, const ForwardShape& shape) const;
  // Seconds of any step graph on `device`: a pipeline stage's slice of layers, a draft head's
  // pass, a first-token prefill. The one memo every forward goes through, keyed by the device
  // class and the graph's fingerprint (models::graph_fingerprint).
  double step_s(int device, const models::StepGraph& graph) const;
  // A pipeline stage: `layers` decoder layers of model `model_id`'s forward of `shape`, with the
  // model's tail (final norm, LM head as shape.include_lm_head says) only when `with_tail`.
  // Through step_s, with an index by shape in front of it as forward_s has.
  double stage_s(int device, int model_id, const ForwardShape& shape, int layers, bool with_tail) const;
  // Registers a draft head (an algorithm whose draft builds its own pass graph, e.g. an EAGLE
  // head) drafting for `target`; the same name, source and target return the first id.
  int add_head(const models::AlgorithmSpec& head, const models::ModelSpec& target);
  // One pass of head `head_id` over `width` tokens per sequence of `batch` at `context`: a pass
  // inside the step the target's verify carries (no per-step host work of its own). Through
  // step_s, with an index by shape in front of it.
  double head_pass_s(int device, int head_id, int width, int batch, long long context) const;
  // Co-located work: each stream's completion time (seconds from their common start) when the
  // streams start together on `device` (memoised per device and works). On a GPU (kind "gpu")
  // the streams run in the multi-stream SystemC model (sim/gpu/gpu_streams.hpp, validated on a
  // lent H100 by sim/golden's contention rows) with the device's stack: they share the SMs and
  // the DRAM bandwidth, so each ends later than alone and all end sooner than in series. Device
  // kinds without a multi-stream model (CPU, FPGA, ...) serve the streams FIFO in the order
  // given: stream i ends at the sum of the alone times (forward_s x repeats) of streams 0..i.
  // The GPU model ignores the engine name: it is the SystemC model whatever `engine` is, so a
  // caller that mixes it with forward_s should take ratios (together over alone) of it.
  std::vector<double> concurrent_s(int device, const std::vector<Work>& works) const;
  // Seconds for `bytes` from device a to device b along the system's route; 0 when a == b;
  // InputError when no path joins them.
  double transfer_s(int a, int b, double bytes) const;

  // Memory of this deployment (sim/system/memory_fit.hpp, the one rule), every scenario's and plan's
  // fit going through here: each device of the system with its share of `target`'s stages and,
  // when given, the standalone `draft` on `draft_device` (default: the system's placement.draft)
  // and a draft head where `head` places it (its weights and own KV cache, sim::draft_head_memory).
  std::vector<DeviceMemory> memory(const models::ModelSpec& target, const models::ModelSpec* draft,
                                   const MemoryQuery& q, std::optional<int> draft_device = std::nullopt,
                                   const DraftHead& head = {}) const;
  // One model whole on `device`, with a standalone draft beside it when given, as the device is
  // deployed (its stack's runtime reserve).
  DeviceMemory device_memory(int device, const models::ModelSpec& model, const MemoryQuery& q,
                             const models::ModelSpec* draft = nullptr) const;
  // The workload's target whole on `device` with what its algorithm drafts with (a standalone draft
  // model or a head); InfeasibleError naming the device, the need and the capacity when it does not fit.
  DeviceMemory require_workload_fit(int device, const models::ModelSpec& target, const models::AlgorithmSpec* algorithm,
                                    const MemoryQuery& q) const;

  // A whole step of the system (sim::simulate_system_step: every stage's slice, the collectives,
  // the activations between stages, a head's passes) on this deployment, kept per query: a
  // dispatcher weighing trees or a window search asking for the same verify again pays once.
  // Only the times are kept (the step's timeline is run with unnamed tasks); a caller that
  // writes a trace runs simulate_system_step itself. Defined in system_step.cpp.
  SystemStepTimes system_step_times(const SystemQuery& q) const;

  // Engine evaluations so far (memo misses): what a benchmark of a scenario counts.
  long long evaluations() const;
  // Whole system steps run so far (system_step_times' memo misses).
  long long system_steps() const;

 private:
  const models::LatencyEngine& engine_unlocked(int device) const;
  double forward_unlocked(int device, int model_id, const ForwardShape& shape) const;
  double step_unlocked(int device, const models::StepGraph& graph) const;
  using Key = std::tuple<int, int, int, long long, int, int, bool>;
  using WorkKey = std::tuple<int, int, long long, int, int, bool, int>;  // model, shape, repeats
  mutable std::map<std::pair<int, std::vector<WorkKey>>, std::vector<double>> concurrent_memo_;
  models::SystemSpec system_;
  std::string engine_;
  std::vector<std::unique_ptr<const models::ModelSpec>> models_;
  std::vector<int> device_class_;  // per device: its class (see device_class)
  mutable std::vector<std::unique_ptr<models::LatencyEngine>> engines_;  // per class: the bare engine
  mutable std::vector<std::unique_ptr<models::LatencyEngine>> views_;    // per class: engine(d)
  mutable std::map<Key, double> forward_index_;                         // shape -> step_s's result
  // (class, model, tokens, context, batch, mask, lm head, layers, tail) -> step_s's result
  mutable std::map<std::tuple<int, int, int, long long, int, int, bool, int, bool>, double> stage_index_;
  // (class, head, width, batch, context) -> step_s's result
  mutable std::map<std::tuple<int, int, int, int, long long>, double> head_index_;
  struct Head {
    std::unique_ptr<const models::AlgorithmSpec> head;
    int target = 0;  // model id
  };
  std::vector<Head> heads_;
  mutable std::map<std::pair<int, std::string>, double> memo_;         // (device class, fingerprint)
  mutable std::mutex mutex_;
  // transfer_s's routes between device pairs without a direct link, searched once (under mutex_):
  // the links of the path in order.
  mutable std::map<std::pair<int, int>, std::vector<const models::LinkSpec*>> route_memo_;
  mutable long long evaluations_ = 0;
  // system_step_times' memo (step_mutex_: a step runs step_s, which takes mutex_, so the two are
  // never held together), keyed by (target, draft, x, context, batch, head, head FFN bytes,
  // verify, prefill, head pass widths); models and heads by an index into the names seen (a model
  // is known by its name, source and weight format, a head by its name and source).
  // A head's layer shape (zeros for none): a head reshaped for its target keeps its name, so
  // the keys that name a head carry its shape too.
  using HeadShape = std::array<int, 11>;
  static HeadShape head_shape(const models::AlgorithmSpec* head);
  using StepKey = std::tuple<int, int, int, long long, int, int, HeadShape, double, bool, bool, std::vector<int>>;
  int step_name_index(const std::string& a, const std::string& b, const std::string& c) const;
  mutable std::vector<std::tuple<std::string, std::string, std::string>> step_names_;
  mutable std::map<StepKey, SystemStepTimes> system_step_memo_;
  // A draft head's whole weights per (head, target), keyed as the steps' names are: memory()
  // runs once per candidate tree and batch, and building the head's pass graph each time to sum
  // its weights was a tenth of an EAGLE heat map.
  double head_weight_bytes(const models::AlgorithmSpec& head, const models::ModelSpec& target) const;
  using HeadWeightKey = std::tuple<int, int, HeadShape>;  // head, target, head's shape
  mutable std::map<HeadWeightKey, double> head_weight_memo_;
  mutable std::mutex step_mutex_;
};

// One device as a deployment (models::single_device_system): what a front end that times one
// device (a reproduction, `window`, `policies`, a Python call) holds, so that its forwards go
// through the deployment's memo like every scenario's. Its engine is `->engine(0)`, alive as long
// as the returned object.
std::unique_ptr<SystemCosts> deploy_device(const models::HardwareSpec& hw, const std::string& engine);

}  // namespace sim
