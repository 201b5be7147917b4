#pragma once
// One decode step of a system on the timeline: the draft (if placed) drafts x tokens on its
// device and sends them to the first pipeline stage; each stage runs its layers on its device
// (a tensor-parallel group runs every layer as an attention half and an MLP half, each
// followed by a ring all-reduce over the group's links); activations move stage to stage over
// the links; the last stage runs the LM head and sends the verified tokens back to the draft.
// Device times come from the deployment's cost layer (sim::SystemCosts: each device class's
// engine, roofline or SystemC, with its software stack, behind one memo); link times from the
// link model; memory from memory_fit.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/algorithm_spec.hpp"
#include "models/model_spec.hpp"
#include "models/operator_graph.hpp"
#include "models/system_spec.hpp"
#include "sim/system/memory_fit.hpp"
#include "sim/system/system_costs.hpp"
#include "sim/system/timeline.hpp"

namespace sim {

struct SystemQuery {
  models::ModelSpec target;
  std::optional<models::ModelSpec> draft;  // a standalone draft model on the draft device
  int x = 1;                               // tokens verified per sequence in the step
  long long context = 0;
  int batch = 1;
  // An EAGLE-style head (an algorithm whose draft is a head on the target's features) drafting
  // before the verification, one pass per entry of head_pass_widths over batch x width rows.
  // It runs tensor parallel over the first stage's group when the system's draft device is in
  // that group (as vLLM and SGLang run EAGLE heads: the target's TP degree), else on the draft
  // device alone; each sharded pass all-gathers its candidates (kHeadCandidates per row).
  std::shared_ptr<const models::AlgorithmSpec> head;
  std::vector<int> head_pass_widths;
  double head_ffn_bytes_per_weight = 0;  // > 0: the head's FFN stored in this format (paper 004 Table 2)
  bool verify = true;         // false: the head's passes alone (the dispatcher times them apart)
  // A prompt's prefill: the x tokens attend causally (no tree mask) and no LM head runs (only the
  // last token's logits are needed: one token of the vocabulary GEMM, left out).
  bool prefill = false;
  bool task_names = true;     // false: the graph's tasks are unnamed (no trace will be written; faster)
};

struct DeviceStep {
  std::string device, hardware, stack, host, role;  // host: the CPU that runs the stack (configs/hosts)
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

// The collectives of a step of one shape (group, operation, size), as they ran: which
// algorithm and transport NCCL or vLLM used (sim/system/collective_choice.hpp).
struct CollectiveStep {
  std::string op;                  // "all-reduce", "all-gather"
  std::vector<std::string> ranks;  // device names, in ring order
  double bytes = 0;                // per call
  std::string algorithm;           // sim::CollectiveChoice::label()
  std::string transport;           // sim::to_string(Transport)
  std::string custom_declined;     // why vLLM's custom all-reduce declined ("" when it ran or is absent)
  long long calls = 0;
  double busy_s = 0;               // summed over the calls: each from its first send's start to its last end
};

struct SystemStep {
  std::vector<DeviceStep> devices;
  std::vector<LaneStep> lanes;
  std::vector<CollectiveStep> collectives;  // in the order of their first call
  TaskGraph graph;
  TimelineRun run;
  double step_s = 0;       // draft + pipelined target pass + return of the verified tokens
  double target_s = 0;     // first stage start to last stage end
  double head_s = 0;       // the head's passes, first start to last end (0 without a head)
  // The first stage's lead device over the step: seconds its stream computed and seconds it sat
  // waiting for collectives and transfers (step - compute - its host work): the exposed
  // communication a breakdown shows.
  double lead_compute_s = 0, lead_wait_s = 0;
  // The longest any one pipeline stage is held by this step: from its first task to the end of
  // its last, the send of its activations to the next stage included, plus a draft's or head's
  // work on one of its devices (on the first stage's lead or group, from the draft's first task;
  // elsewhere added, as the two take turns there); a draft or head on a device of no stage holds
  // that device apart. A pipeline with micro-batches in flight takes the next one after this much
  // (vLLM's virtual engines); on one stage it is the step less what runs off the stage's devices.
  double stage_period_s = 0;
  // Per device of the first stage (one TP rank), in one verification: weight and KV-cache bytes
  // its kernels read.
  double rank_weight_bytes = 0, rank_kv_read_bytes = 0;
  bool feasible = true;    // every device's memory fits
};

// One step of the deployment `costs` describes (its system, engine and memo): every device time
// of the step (stage, tensor-parallel slice, head pass, draft pass) is costs.step_s, so steps of
// many shapes, and many callers sharing one SystemCosts, pay for each distinct forward once.
SystemStep simulate_system_step(const SystemCosts& costs, const SystemQuery& query);
// A one-off step: a cost layer of its own for `system` on `engine`.
SystemStep simulate_system_step(const models::SystemSpec& system, const SystemQuery& query, const std::string& engine);

// The system with every device's software stack charging no host time (launches, per-layer,
// per-step, graph launches): the kernels alone, for a caller that adds the host time itself.
models::SystemSpec without_host_work(models::SystemSpec system);

// The model one rank of a tensor-parallel group holds: heads, KV heads, MLP width and
// vocabulary divided by `tp` (KV heads replicated when fewer than tp). MoE layers are tensor
// parallel over every expert's FFN (each rank holds 1/tp of each routed and shared expert's
// moe_intermediate_size, the router whole): vLLM's FusedMoE default and Megatron's
// expert-tensor-parallel mode; expert parallelism would place whole experts per GPU with the
// same memory per GPU but uneven reads. InputError when heads or widths do not divide.
models::ModelSpec tensor_parallel_shard(const models::ModelSpec& m, int tp, const std::string& where);

// A head pass graph with its FFN (gate/up and down projections) stored at `bytes_per_weight`
// (FP8, INT4: paper 004 Table 2 quantises the draft's FFN only); its FLOPs are unchanged.
void quantise_head_ffn(models::StepGraph& graph, double bytes_per_weight);

// Candidates per row each rank of a sharded head sends in its all-gather (token id and score,
// 8 bytes each): the dispatcher's largest branching factor, so any tree can be grown.
constexpr int kHeadCandidates = 4;

}  // namespace sim
