#pragma once
// Where a command's AAT(x) comes from, chosen on the command line and named in its output:
//   - measured points from the acceptance CSV (--data, default <config dir>/acceptance/
//     aat_measurements.csv), selected by the workload's own model / algorithm / task names or by
//     another workload's (--aat-from MODEL/ALGORITHM/TASK, e.g. for a new model with no
//     measurements of its own), fitted with Ceres;
//   - a per-token acceptance probability for a chain (--alpha A): a chain of x - 1 draft tokens,
//     each accepted with probability A independently until the first rejection, accepts
//     sum_{i=1}^{x-1} A^i tokens on average, so AAT(x) = (1 - A^x) / (1 - A) (derived, not fitted);
//   - an acceptance trace (--trace F, DESIGN.md contract 3): AAT(x) of the chain 0, 0 0, ... for
//     chain algorithms, of the prior-score tree of x - 1 nodes (paper 000 §III-C) for tree ones;
//   - an acceptance process band (--acceptance BAND, DESIGN.md "Acceptance process"): the band's
//     central process, AAT(x) of its chain of x - 1 tokens or of its best-first tree of x - 1
//     nodes (exact expectations, no fit of measured points).
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "models/algorithm_spec.hpp"
#include "models/config_registry.hpp"
#include "search/acceptance/aat_resolver.hpp"

namespace experiments {

// The resolver lives in the search layer (search/acceptance/aat_resolver.hpp); the command
// line's names for it.
using search::AatKey;
using search::AatResolver;
using search::AcceptanceOptions;
using search::acceptance_csv_path;
using search::check_acceptance_options;
using search::geometric_chain_aat;
using search::ResolvedAat;

// Adds --data, --aat-from, --alpha, --trace (mutually exclusive but --data with --aat-from).
void add_acceptance_options(CLI::App& sub, AcceptanceOptions& o);

}  // namespace experiments
