#pragma once
// Device memory a placement needs: weights of the layers a device holds (a tensor-parallel
// shard of them), the embedding on the first stage and the LM head on the last, the KV cache
// its layers keep for every sequence, the peak activations of one step, and the runtime
// reserve of its software stack; against the device's capacity. A design that does not fit is
// infeasible and is reported so, never timed.
#include <optional>
#include <string>
#include <vector>

#include "models/algorithm_spec.hpp"
#include "models/hardware_spec.hpp"
#include "models/model_spec.hpp"
#include "models/system_spec.hpp"

namespace sim {

struct MemoryNeed {
  double weights_bytes = 0;
  double kv_bytes = 0;
  double activation_bytes = 0;
  double runtime_bytes = 0;
  double total() const { return weights_bytes + kv_bytes + activation_bytes + runtime_bytes; }
  MemoryNeed& operator+=(const MemoryNeed& o) {
    weights_bytes += o.weights_bytes;
    kv_bytes += o.kv_bytes;
    activation_bytes += o.activation_bytes;
    runtime_bytes += o.runtime_bytes;
    return *this;
  }
};

struct DeviceMemory {
  std::string device;
  std::string roles;          // e.g. "target layers 0-9 + embedding", "draft llama-3.2-1b"
  MemoryNeed need;
  double capacity_bytes = 0;  // 0: the config states none (not checked)
  bool fits() const { return capacity_bytes <= 0 || need.total() <= capacity_bytes; }
};

// What a share of a model needs on one device.
struct ModelShare {
  int first_layer = 0, last_layer = -1;  // inclusive
  int tensor_parallel = 1;
  bool embedding = false, lm_head = false;
};

struct MemoryQuery {
  int batch = 1;
  long long kv_tokens = 0;     // KV slots per sequence (context + tokens of the step, or a reserve)
  int step_tokens = 1;         // tokens per sequence in one step (x)
  // Tokens whose logits the LM head produces in one step, all sequences together (-1: every
  // token of the step; SpecPipe's last stage holds only each request's verified token).
  long long lm_head_tokens = -1;
  std::string parameter_rule = "exact";  // see models::MemoryOptions
};

MemoryNeed model_share_memory(const models::ModelSpec& model, const ModelShare& share, const MemoryQuery& q);

// Every device of a system with the target (stages) and the draft (if placed) on it.
std::vector<DeviceMemory> system_memory(const models::SystemSpec& system, const models::ModelSpec& target,
                                        const models::ModelSpec* draft, const MemoryQuery& q);

// One model whole on one device (and a standalone draft beside it).
DeviceMemory device_memory(const models::HardwareSpec& hw, const models::ModelSpec& model, const MemoryQuery& q,
                           const models::ModelSpec* draft = nullptr);
// A short status for tables: "ok", "unchecked" (no capacity stated) or "infeasible: needs X GiB of Y GiB".
std::string fit_status(const DeviceMemory& d);

// One model whole on one device (single-device queries): InputError "infeasible: ..." naming
// the device, the need and the capacity when it does not fit.
DeviceMemory require_fit(const models::HardwareSpec& hw, const models::ModelSpec& model, const MemoryQuery& q,
                         const models::ModelSpec* draft = nullptr);

// What a draft head (an EAGLE or LongSpec head: no model of its own) needs beside its target on
// a device holding 1/tp of it: the weights of its pass graph and its own KV caches (EAGLE: one
// per decoder layer over the whole context; LongSpec: its self-attention window). Zero for a
// standalone draft model, which model_share_memory counts.
// `weight_bytes`: the head's whole weights where the caller keeps them (draft_head_weight_bytes);
// else they are worked out from its pass graph.
MemoryNeed draft_head_memory(const models::AlgorithmSpec& algorithm, const models::ModelSpec& target, int batch,
                             long long kv_tokens, int tp = 1, std::optional<double> weight_bytes = std::nullopt);
// The weights of a draft head's pass graph, whole (0 for a standalone draft model).
double draft_head_weight_bytes(const models::AlgorithmSpec& algorithm, const models::ModelSpec& target);

// A draft head beside a system's target and where its memory lands (SystemCosts::memory adds it).
struct DraftHead {
  const models::AlgorithmSpec* algorithm = nullptr;  // the head (null: none; a standalone draft model adds nothing)
  int device = -1;  // the device it runs on; -1: the system's draft device, else the first stage's first device
  // true: sharded 1/tp over the first stage's tensor-parallel group when `device` is one of its
  // ranks (vLLM runs an EAGLE head tensor parallel with the target's first layers); false, or a
  // device outside that group: whole on `device`.
  bool shard_with_first_stage = false;
  std::string role;  // how the device's roles name it (default: "draft head ALGORITHM")
};

// Adds `head` to `devices` (system_memory's, one per device of `system`) where it places it; a
// device that held nothing before gains its stack's runtime reserve.
// `weight_bytes` as draft_head_memory's.
void add_draft_head_memory(std::vector<DeviceMemory>& devices, const models::SystemSpec& system,
                           const models::ModelSpec& target, const DraftHead& head, const MemoryQuery& q,
                           std::optional<double> weight_bytes = std::nullopt);

// require_fit for a workload: the target whole on one device with its draft, a standalone draft
// model or a head, beside it.
DeviceMemory require_workload_fit(const models::HardwareSpec& hw, const models::ModelSpec& target,
                                  const models::AlgorithmSpec* algorithm, const MemoryQuery& q);

std::string format_gib(double bytes);

}  // namespace sim
