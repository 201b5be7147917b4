#pragma once
// The front ends' side of the scenario runner (search/scenarios/scenario_runner.hpp, which every
// front end calls): scenario_table is the one adapter from the result schema to tables, CSV and
// JSON, and the common inputs' flag names.
#include <set>
#include <string>
#include <vector>

#include "experiments/output/table.hpp"
#include "models/config_registry.hpp"
#include "models/hardware_spec.hpp"
#include "search/scenarios/scenario_runner.hpp"

namespace experiments {

using search::run_scenario;
using search::ScenarioInputs;

// A scenario's validation line as a machine-readable field: without its "validation: " label.
std::string validation_field(const std::string& validation);

// The result as a Table (numbers with 4 significant digits in text, full precision in CSV/JSON).
Table scenario_table(const search::ScenarioResult& result);

// The names of the common inputs a scenario can take, as flags (hw, model, ...), for sweeps and
// generated subcommands.
const std::vector<std::string>& scenario_input_names();

}  // namespace experiments
