#pragma once
// `specdse optimize` as Python's `specdse.optimize` fills it, field for field: the tree-sd
// scenario's common inputs and parameters (search/scenarios/tree_sd/tree_sd_scenario.cpp), so
// the command and the module run one scenario with one set of options, columns and numbers.
#include <string>

#include "experiments/cli/acceptance_source.hpp"
#include "experiments/cli/draft_placement_options.hpp"
#include "experiments/cli/scenario_runner.hpp"

namespace experiments {

struct OptimizeRequest {
  std::string hw, model, algorithm, task = "govreport", context, batch = "1", engine = "roofline";
  AcceptanceOptions acceptance;
  int x_max = 128;
  std::string x_search = "every_x";  // every_x | optimum
  bool measured_only = false;
  DraftPlacementNames placement;
  std::string stack, host;  // --stack, --host: --hw's software stack and the host CPU that runs it
};

// The tree-sd scenario's inputs for the request (its parameters as KEY=VALUE settings, checked
// against the declarations when it runs); InputError for a bad context list.
ScenarioInputs optimize_inputs(const OptimizeRequest& request);

}  // namespace experiments
