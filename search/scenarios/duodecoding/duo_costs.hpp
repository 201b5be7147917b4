#pragma once
// Where DuoDecoding runs and what each piece costs. The target sits on one device of a system
// (a single-stage, single-device placement: paper 003's A800), the draft on the system's draft
// device or any other device named by the caller (the CPU, the same GPU, another GPU); the two
// meet along the system's route between them (sim/system/routes.hpp). Forward times come from
// the system's cost layer (sim/system/system_costs.hpp: each device's engine, roofline or
// SystemC, with its software stack), so the pytorch-eager launch costs of the target and
// llama.cpp's on the CPU are both charged.
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "models/model_spec.hpp"
#include "models/system_spec.hpp"

namespace search::duodecoding {

struct DuoPlacement {
  models::SystemSpec system;
  int target_device = -1;
  int draft_device = -1;
  bool same_device() const { return target_device == draft_device; }
};

// The target's device (InputError unless the placement is one stage on one device) and the
// draft's: `draft_device` by name when given (InputError naming the system's devices when it has
// no such device, the closest first, and `option`, the flag that named it), else the system's
// placement.draft. Checks the links both ways.
DuoPlacement resolve_placement(const models::SystemSpec& system, const models::ModelSpec& target,
                               const std::string& draft_device, const std::string& option = "--draft-device");

// Decode steps see the KV length at their iteration's start rounded down to a multiple of this:
// one engine call per 64 tokens of growth instead of one per token. 64 tokens of Llama-2-7B KV
// (32 MiB) are 0.25 % of a step's 13.5 GB of weight reads, so the rounding moves no step by more.
inline constexpr long long kContextStep = 64;

class DuoCosts {
 public:
  // Engine costs. Decode steps start at context `prompt` and grow with the generated tokens
  // (target_forward_at / draft_pass_at); `reference_context` is the KV length at which the
  // budget and SpS's window are chosen once, before decoding (the mean over the generation).
  static DuoCosts from_engines(const DuoPlacement& placement, const models::ModelSpec& target,
                               const models::ModelSpec& draft, const std::string& engine, long long prompt,
                               long long reference_context);
  // Fixed costs (tests, what-if studies): every target forward takes target_forward_s whatever
  // x and context, every draft pass draft_pass_s; prefill likewise per pass.
  static DuoCosts constant(double target_forward_s, double draft_pass_s);

  // Seconds to move `bytes` from device `from` to device `to` of the placement's system: the
  // system's cost layer's transfer rule (its routes, relays included). Engine costs only; constant
  // ones carry no system (std::logic_error).
  double transfer_s(int from, int to, double bytes) const;

  double target_forward_s(int x) const;     // target forward over x new tokens (reference context)
  double draft_pass_s() const;              // one draft forward of one token (reference context)
  // The same after `generated` tokens were appended to the prompt (context grows as they are).
  double target_forward_at(int x, long long generated) const;
  double draft_pass_at(long long generated) const;
  double target_prefill_s(int tokens) const;  // target forward over the prompt (empty cache)
  double draft_prefill_s(int tokens) const;   // draft forward over the prompt (empty cache)
  // A shared GPU (placement.same_device() on a GPU): the target's forward over x new tokens and
  // `passes` draft passes started together after `generated` tokens, as two streams of the GPU
  // (sim::SystemCosts::concurrent_s). Returns {target seconds, draft seconds}: each stream's
  // alone time (target_forward_at, passes x draft_pass_at: this engine's) times its slowdown in
  // the multi-stream SystemC model (together over alone there), so the engine still sets the
  // alone times and the validated model only the contention. Memoised per (x, passes, context
  // bucket). Only when co_located(); InputError otherwise.
  std::pair<double, double> co_located_at(int x, int passes, long long generated) const;
  bool co_located() const { return bool(together_); }
  // Paper 003 §3.1: target forward time on its device over draft forward time on its device.
  double cost_coefficient() const { return target_forward_s(1) / draft_pass_s(); }
  long long context() const { return context_; }
  long long prompt() const { return prompt_; }
  // KV length of a decode step after `generated` tokens (rounded down to kContextStep).
  long long decode_context(long long generated) const {
    return prompt_ + generated / kContextStep * kContextStep;
  }

 private:
  // Engine costs are memoised in the system's cost layer (sim::SystemCosts); constant ones
  // need no memo.
  using Cost = std::function<double(int tokens, long long context)>;
  Cost target_, draft_;
  std::function<double(int from, int to, double bytes)> transfer_;
  // Slowdowns {target, draft} of a shared device's two streams (empty: none modelled).
  std::function<std::pair<double, double>(int x, int passes, long long context)> together_;
  long long context_ = 0, prompt_ = 0;
};

// Paper 003 §3.1's hardware-aware budget: the cost coefficient rounded down to whole draft
// passes, at least 1. Down, because the budget's passes must fit inside one target forward: a
// pass too many idles the GPU (the step gets longer), a pass too few idles only the CPU (the
// step keeps the target's time; the sweeps show the asymmetry).
int hardware_aware_budget(const DuoCosts& costs);

}  // namespace search::duodecoding
