#pragma once
// The dispatch policy of a simulated serving instance (`serve --dispatch`): how many tokens each
// speculative decode step drafts per sequence, chosen per step from the batch that runs (paper
// 004's argument: the step's cost grows with the batch, the tokens it keeps do not). The instance
// asks it once a step (after a preemption shrinks the batch, again) for the draft tokens of a step
// of `batch` sequences at the context bucket; the load threshold (ServingConfig::sd_off_above_batch)
// applies before any policy, and a token budget (chunked prefill) may cut what it returns.
//
// One implementation per file under dispatch/, each registering itself by name: static (--k every
// speculative step) and per-batch (the k with the most tokens a second at the step's batch).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "search/scenarios/serving/serving_simulation.hpp"

namespace search::serving {

// What a policy is built from: the run's configuration and step costs and, for a chain method, its
// measured yields (null for SpecPipe-DB's levels and for no speculation).
struct DispatchInputs {
  const ServingConfig& config;
  const ServingStepCosts& costs;
  const YieldChain* chain = nullptr;
};

class DispatchPolicy {
 public:
  virtual ~DispatchPolicy() = default;
  // Draft tokens per sequence for a decode step of `batch` sequences at mean context
  // `context_bucket` (0 .. ServingConfig::k; 0: a plain step).
  virtual int draft_tokens(int batch, long long context_bucket) = 0;
};

struct DispatchPolicyInfo {
  std::string summary;  // one line for --help and errors
  // Whether it decides from the chain's stationary statistics (refused with replayed traces,
  // whose yields are per position, not a chain's).
  bool uses_chain_statistics = false;
  std::function<std::unique_ptr<DispatchPolicy>(const DispatchInputs&)> make;
};

// Registers a policy under `name` from a static initialiser (a duplicate name is a logic_error).
struct DispatchPolicyRegistration {
  DispatchPolicyRegistration(const std::string& name, DispatchPolicyInfo info);
};

// The policy registered as `name`; InputError listing the registered ones otherwise.
const DispatchPolicyInfo& dispatch_policy(const std::string& name);
// Every registered policy's name, in name order.
std::vector<std::string> dispatch_policy_names();

}  // namespace search::serving
