#pragma once
// Runs a registered scenario (scenario.hpp) from any front end: `specdse scenario NAME --param
// KEY=VALUE`, a scenario's own subcommand, the Python module, scenario sweeps and `plan` all fill
// one ScenarioInputs and call run_scenario, so the same names reach the same code. It resolves the
// common inputs (hardware and its stack as a one-device deployment, the workload, the measured
// AAT) into a ScenarioContext and appends the scenario's validation status to its result.
#include <set>
#include <string>
#include <vector>

#include "models/config_registry.hpp"
#include "models/hardware_spec.hpp"
#include "models/latency_engine.hpp"
#include "search/scenarios/scenario.hpp"

namespace search {

// The common inputs of every scenario (each says which it needs) and its own parameters.
struct ScenarioInputs {
  std::string hw;                                  // hardware config name or path; empty: none
  // With --hw (or hw_spec): the software stack its device runs (a configs/stacks name or a YAML
  // path); empty: the device's own (a hardware config's is "bare": kernels only).
  std::string stack;
  // With --hw (or hw_spec): the host CPU that runs that stack (a configs/hosts name or a YAML
  // path); empty: the device's own (the reference host).
  std::string host;
  const models::HardwareSpec* hw_spec = nullptr;   // an in-memory hardware spec instead (Python)
  const models::SystemSpec* system_spec = nullptr; // an in-memory system instead of the `system` parameter
  std::string model, algorithm, task = "govreport", data, source_table;
  std::string engine = "roofline";
  bool engine_given = false;  // --engine was set: it also fills an undeclared-in-settings `engine` parameter
  std::vector<long long> contexts;
  int batch = 1;
  std::vector<std::string> params;  // KEY=VALUE, validated against the declarations
  bool want_trace = false;          // a trace will be written: name the timeline's tasks
  // Common inputs set by the caller (a command line's flags, Python's keywords), by name ("batch",
  // "task", ...): given at its default value is still given (ScenarioContext::given).
  std::set<std::string> given;
};

// Resolves the common inputs and runs scenario `name`; InputError on bad input.
search::ScenarioResult run_scenario(const std::string& name, const ScenarioInputs& inputs,
                                    const models::ConfigRegistry& registry);
// The same with `body` in place of the scenario's registered run: a typed caller
// (typed_scenario.hpp) keeps its typed rows while the runner resolves the same inputs.
search::ScenarioResult run_scenario(const std::string& name, const ScenarioInputs& inputs,
                                    const models::ConfigRegistry& registry, const ScenarioRun& body);

// The workload from names: the target model (a config name, NAME@FORMAT or a YAML path) and, when
// given, what drafts (an SD algorithm or a draft model name).
models::Workload make_workload(const models::ConfigRegistry& reg, const std::string& model,
                               const std::string& algorithm, int batch = 1);

}  // namespace search
