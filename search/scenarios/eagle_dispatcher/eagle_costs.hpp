#pragma once
// What the pieces of one EAGLE decode step cost on a deployment: one GPU (a latency engine) or a
// system of GPUs running the target and the head tensor parallel (sim/system/system_step on the
// system timeline: TP slices and all-reduces over the link model). The dispatcher
// (eagle_dispatcher.hpp) only sees this interface, so the same tree search runs on both.
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "models/latency_engine.hpp"
#include "models/software_stack.hpp"
#include "models/system_spec.hpp"

namespace search {

struct EagleForwardCost {
  double seconds = 0;       // the forward (kernels and, on a system, its collectives)
  double wait_s = 0;        // of which the lead GPU waited on collectives / transfers
  double weight_bytes = 0;  // weights one GPU (one TP rank) reads
  double kv_bytes = 0;      // KV-cache bytes one GPU reads
};

class EagleCostModel {
 public:
  virtual ~EagleCostModel() = default;
  virtual std::string where() const = 0;  // hardware or system name
  virtual const models::Workload& workload() const = 0;
  // Target forward over batch sequences x x tokens each (tree mask when x > 1) at context L.
  virtual EagleForwardCost verify(int x, int batch, long long context) const = 0;
  // One head pass over batch x width rows.
  virtual EagleForwardCost draft_pass(int width, int batch, long long context) const = 0;
  // Host seconds a decode step of `sequences` sequences with `forwards` captured forwards (the
  // verify and forwards - 1 head passes) adds to `device_s` of GPU work (eagle_host_seconds: the
  // stack's per-step and per-sequence work and launches, overlapped where it says so, and its
  // proposer's work per head pass, in series; per_sequence_us >= 0 replaces the stack's per-sequence
  // figure, a sensitivity input).
  virtual double host_s(int forwards, double device_s, int sequences, double per_sequence_us = -1) const = 0;
  // The host that runs the stack's host work (the GPU's, or the lead device's of a system): a
  // what-if host figure given on the command line (--sd-host-us) is a stack figure, on its scale.
  virtual const models::HostSpec& host() const = 0;
  // "ok" / "unchecked", or "infeasible: needs X GiB of Y GiB" when the target, the head and
  // their KV caches for batch x (context + x) tokens do not fit a GPU.
  virtual std::string memory_status(int x, int batch, long long context) const = 0;
};

// The EAGLE head paper 004 trains for `target` (§2.1-2.3): one decoder layer with the target's
// own dense layer shape (hidden size, heads, KV heads, head dim, dense MLP width), the input fc
// and draft vocabulary of `algorithm`. A head whose shape already matches is returned as is.
// InputError unless the algorithm's draft is an EAGLE head (type eagle3).
models::AlgorithmSpec eagle_head_for_target(const models::AlgorithmSpec& algorithm, const models::ModelSpec& target);

// One GPU, `hw` as a one-device deployment on the named engine (costing kernels only: give `hw`
// the bare stack); host time and the memory reserve from `stack`. head_ffn_bytes_per_weight > 0
// stores the head's FFN in that format (paper 004 Table 2).
std::unique_ptr<EagleCostModel> make_engine_eagle_costs(const models::HardwareSpec& hw, const std::string& engine,
                                                        models::Workload w, models::SoftwareStack stack,
                                                        double head_ffn_bytes_per_weight = 0);
// The same for an engine's hardware and name (the deployment builds its own engine of that name).
std::unique_ptr<EagleCostModel> make_engine_eagle_costs(const models::LatencyEngine& engine, models::Workload w,
                                                        models::SoftwareStack stack,
                                                        double head_ffn_bytes_per_weight = 0);
// A system: the target on its placement, the head tensor parallel on the first stage's group
// (when the system's draft device is in it), `engine` ("roofline", "sim", ...) per device, host
// time from the first stage's lead device's stack.
std::unique_ptr<EagleCostModel> make_system_eagle_costs(models::SystemSpec system, models::Workload w,
                                                        std::string engine, double head_ffn_bytes_per_weight = 0);

}  // namespace search
