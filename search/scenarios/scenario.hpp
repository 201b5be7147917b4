#pragma once
// Scenarios: one paper's system as a solver that `specdse scenario NAME` runs (tree SD here;
// SpecPipe, DuoDecoding and a batched tree dispatcher to come). Each lives in its own file under
// search/scenarios/ with one static ScenarioRegistration (Ramulator 2 style, as
// models/engine_registry.hpp), so a new scenario is one file plus that one line. The command
// resolves the common inputs (hardware and engine, workload, contexts, acceptance data); a
// scenario checks it has what it needs and reads its own parameters (--param KEY=VALUE).
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "models/config_registry.hpp"
#include "models/hardware_spec.hpp"
#include "models/latency_engine.hpp"
#include "search/optimizer.hpp"

namespace search {

struct ScenarioParam {
  std::string key, default_value, help;
};

struct ScenarioContext {
  std::string scenario;                              // the scenario's name, for errors
  const models::ConfigRegistry* configs = nullptr;   // for scenarios loading more (systems)
  const models::HardwareSpec* hw = nullptr;          // --hw; null when not given
  const models::LatencyEngine* engine = nullptr;     // --engine for --hw; null without --hw
  const models::Workload* workload = nullptr;        // --model (and --algorithm); null without --model
  std::vector<long long> contexts;                   // --context
  // Measured AAT and its fit for the workload's algorithm and model at a context; empty
  // without --algorithm.
  std::function<AatSource(long long context)> aat;
  std::map<std::string, std::string> params;         // every declared parameter, defaults filled in

  // InputError "scenario NAME: expected OPTION, got none" unless `given`.
  void require(bool given, const std::string& option) const;
  // A declared parameter as an integer / a boolean (true, false); InputError naming it otherwise.
  long long int_param(const std::string& key) const;
  bool bool_param(const std::string& key) const;
};

// A table: named columns (SI units in the name), one row per record, a summary line.
using ScenarioCell = std::variant<std::string, std::int64_t, double>;
struct ScenarioResult {
  std::vector<std::string> columns;
  std::vector<std::vector<ScenarioCell>> rows;
  std::string footer;
};

using ScenarioRun = std::function<ScenarioResult(const ScenarioContext&)>;

struct ScenarioInfo {
  std::string name, description;
  std::vector<ScenarioParam> params;
  ScenarioRun run;
};

struct ScenarioRegistration {
  explicit ScenarioRegistration(ScenarioInfo info);
};

// Registered scenarios, by name.
std::vector<ScenarioInfo> scenarios();
// The scenario `name`; InputError listing the registered ones when there is none.
ScenarioInfo scenario(const std::string& name);
// Its context's parameters: the declared defaults overridden by KEY=VALUE settings; InputError
// naming an undeclared key and listing the declared ones.
std::map<std::string, std::string> scenario_params(const ScenarioInfo& info,
                                                   const std::vector<std::string>& settings);

}  // namespace search
