#include "experiments/cli/acceptance_source.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "models/config_error.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "search/acceptance/process_aat.hpp"
#include "search/trees/path_counts.hpp"
#include "search/trees/tree_search.hpp"

namespace experiments {

using models::InputError;

void add_acceptance_options(CLI::App& sub, AcceptanceOptions& o) {
  auto* data = sub.add_option("--data", o.data,
                              "AAT CSV (default: <config dir>/acceptance/aat_measurements.csv)");
  auto* from = sub.add_option("--aat-from", o.aat_from,
                              "Use the measured AAT of another workload, MODEL/ALGORITHM/TASK "
                              "(e.g. llama-3.1-8b-instruct/longspec-tree/govreport)");
  auto* alpha = sub.add_option("--alpha", o.alpha,
                               "Per-token acceptance probability of a chain draft: AAT(x) = (1 - a^x) / (1 - a)")
                   ->check(open_probability());
  auto* trace = sub.add_option("--trace", o.trace,
                               "Acceptance trace (DESIGN.md format): AAT of the chain, or of the prior-score tree");
  auto* process = sub.add_option("--acceptance", o.process,
                                 "Acceptance process band, NAME (configs/acceptance/processes) or FILE: AAT of its "
                                 "chain or best-first tree (specdse fit --statistics writes one)");
  alpha->excludes(from)->excludes(trace)->excludes(data);
  trace->excludes(from)->excludes(data);
  process->excludes(alpha)->excludes(trace)->excludes(from)->excludes(data);
  sub.add_option("--source-table", o.source_table, "Only AAT rows from this source table");
}

}  // namespace experiments
