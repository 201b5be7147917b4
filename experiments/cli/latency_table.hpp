#pragma once
// `specdse latency` and Python's `specdse.latency`: T_v(x, L) per batch, context and x (with
// T_d and T_v + T_d for a draft), or per operator (--breakdown), from one device's engine. One
// builder for both, so the command and the module give the same rows from the same checks.
#include <string>
#include <vector>

#include "experiments/output/table.hpp"
#include "models/config_registry.hpp"
#include "models/hardware_spec.hpp"
#include "models/model_spec.hpp"

namespace experiments {

struct LatencyRequest {
  models::HardwareSpec hw;  // its stack and host as the caller set them (apply_stack_and_host)
  models::ModelSpec model;
  std::string draft;        // an algorithm or a draft model name; empty: T_v only
  std::vector<long long> xs, contexts, batches;
  std::string engine;       // empty: the default engine
  bool breakdown = false;   // one row per operator (one batch only)
  bool sample = false;      // a sampled step (stacks that list their sampler's kernels)
};

// Replaces hw's software stack and host CPU by the named ones (configs/stacks, configs/hosts;
// empty: kept); InputError naming the option (`stack_option`, `host_option`) for a device whose
// engines run no host framework, where the setting would be ignored.
void apply_stack_and_host(models::HardwareSpec& hw, const std::string& stack, const std::string& host,
                          const models::ConfigRegistry& reg, const std::string& stack_option = "--stack",
                          const std::string& host_option = "--host");

// The rows; InputError for a bad request (work past its bound, a design that does not fit the
// device's memory, --sample where no sampler is modelled, --breakdown over several batches).
Table latency_table(const LatencyRequest& request, const models::ConfigRegistry& reg);

}  // namespace experiments
