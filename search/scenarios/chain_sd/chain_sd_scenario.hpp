#pragma once
// The chain-sd scenario's typed seam (search/scenarios/typed_scenario.hpp): its parameters and
// rows as structs, for callers in C++ (plan's chain SD scheme). The declarations, their defaults
// and the columns are in chain_sd_scenario.cpp.
#include <optional>
#include <string>
#include <vector>

#include "search/scenarios/typed_scenario.hpp"

namespace search::chain_sd {

struct Params {
  std::string system;         // a system config or path; empty: --hw's one device
  std::string draft;          // draft model (MODEL@FORMAT for quantised weights)
  std::string draft_device;   // empty: the system's draft device
  std::string target_device;  // empty: the system's target placement
  std::vector<long long> gamma;          // windows searched
  std::optional<double> alpha;           // independent per-token acceptance
  std::string acceptance;                // an acceptance process band instead of alpha
  std::string engine;
};

// One window at one context.
struct Row {
  std::string system, draft_device, target_device;
  long long context = 0, gamma = 0;
  RowStatus status;
  // Unset where the row was not timed (status not ok).
  std::optional<double> expected_tokens_per_step, t_draft_s, t_transfer_s, t_verify_s, step_s, tokens_per_s,
      ar_tokens_per_s, speedup, tokens_per_s_low, tokens_per_s_high;
  std::optional<std::string> acceptance;
  bool best = false;  // the fastest window of its context
};

const TypedScenario<Params, Row>& scenario();

}  // namespace search::chain_sd
