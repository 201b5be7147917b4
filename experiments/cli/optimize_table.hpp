#pragma once
// `specdse optimize` as data, for the command and the Python module alike (one code path, so
// `specdse.optimize(...)` has the command's options, columns and numbers): per context and batch,
// the best verification length x, its P_eff = AAT / (T_v + T_d), the speed-up over AD, the
// regime and where the acceptance came from; and every evaluated x (the P_eff curve).
#include <string>
#include <vector>

#include "experiments/cli/acceptance_source.hpp"
#include "experiments/cli/draft_placement_options.hpp"
#include "experiments/output/table.hpp"
#include "models/config_registry.hpp"

namespace experiments {

struct OptimizeRequest {
  std::string hw, model, algorithm, task = "govreport", context, batch = "1", engine = "roofline";
  AcceptanceOptions acceptance;
  int x_max = 128;
  std::string x_search = "every_x";  // every_x | optimum
  bool measured_only = false;
  DraftPlacementNames placement;
};

struct OptimizeCurvePoint {
  long long context = 0, batch = 1;
  int x = 1;
  double aat = 0, t_verify_s = 0, t_draft_s = 0, tokens_per_s = 0;
};

struct OptimizeOutput {
  Table table{{}};                         // the command's table, its footer set
  std::vector<OptimizeCurvePoint> curve;  // every evaluated x, per context and batch
};

// InputError for a bad request (names the option), as the command's own checks.
OptimizeOutput optimize_table(const OptimizeRequest& request, const models::ConfigRegistry& reg);

}  // namespace experiments
