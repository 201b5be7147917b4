#pragma once
// AAT(x) from the acceptance process (exact expectations, nothing fitted to measured points):
// for a chain algorithm its chain of x - 1 draft tokens, for a tree algorithm its best-first tree
// of x - 1 nodes (the tree the process's own prior ranks best, paper 000's prior-score search with
// the process as the prior). Used by `optimize --acceptance` and the tree-sd scenario.
#include <string>
#include <vector>

#include "search/acceptance/acceptance_process.hpp"
#include "search/optimizer.hpp"

namespace search {

// The fewest x an exact AAT table holds: its A + B ln(x - C) fit (the naive-set slope rule) needs
// three points.
inline constexpr int kMinExactAatPoints = 3;

// AAT at x = 1 .. x_max (index x - 1).
std::vector<double> process_aat(const AcceptanceProcess& process, bool chain, int x_max);

// Exact AAT values for every x (an alpha, a trace, a process) as an AatSource, plus a fit through
// them, which the optimiser uses only for the naive-set slope rule.
AatSource exact_aat_source(const std::vector<double>& aat_at_x, const std::string& what);

}  // namespace search
