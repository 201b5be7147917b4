#pragma once
// CLI11 options generated from a scenario's declarations (search/scenarios/scenario.hpp): the
// common inputs (--hw, --model, --algorithm, --context, ...) and one `--KEY` flag per declared
// parameter, with its default, unit, range and help from the declaration and the same
// validation as `--param KEY=VALUE`. A parameter that shares a common input's name (a
// scenario's own `engine` or `batch`) replaces that input.
#include <CLI/CLI.hpp>

#include <map>
#include <memory>
#include <string>

#include "experiments/cli/scenario_runner.hpp"
#include "search/scenarios/scenario.hpp"

namespace experiments {

struct ScenarioCommandArgs {
  ScenarioInputs inputs;
  std::string context, format, trace_out;
  std::string plot;    // --plot FILE.png (scenarios with a plot script)
  std::string report;  // --report FILE.html (experiments/output/scenario_report.hpp)
  std::string python;  // --python for --plot
  std::map<std::string, std::string> values;  // --KEY value per declared parameter
  std::map<std::string, bool> switches;       // --KEY / --no-KEY per declared boolean
};

// Adds the common inputs to `sub`, minus those `info` declares as parameters (all of them when
// `info` is null: `specdse scenario`).
void add_scenario_inputs(CLI::App& sub, ScenarioCommandArgs& a, const search::ScenarioInfo* info);
// Adds one option per declared parameter of `info`.
void add_scenario_param_flags(CLI::App& sub, ScenarioCommandArgs& a, const search::ScenarioInfo& info);
// The help line of a declaration: its help, unit and accepted values.
std::string param_help(const search::ScenarioParam& p);
// Fills inputs.contexts and inputs.params (KEY=VALUE for every --KEY given) from the parsed flags.
void finish_scenario_inputs(CLI::App& sub, ScenarioCommandArgs& a, const search::ScenarioInfo* info);
// `specdse scenario NAME` offers every common input's flag: InputError naming the first one given
// that scenario `info` neither takes nor declares (it would be ignored).
void refuse_untaken_inputs(const CLI::App& sub, const search::ScenarioInfo& info);

}  // namespace experiments
