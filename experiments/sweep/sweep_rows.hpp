#pragma once
// The columns and row text of an optimiser sweep's points, shared by the runner and the output
// files (resume, shard merge), so a row reads back exactly as it was written.
#include <string>
#include <vector>

#include "experiments/output/table.hpp"
#include "experiments/sweep/sweep_spec.hpp"

namespace experiments {

// The point's own columns (index, workload, hardware-override and placement axes) and the
// optimiser's result columns, in output order.
extern const std::vector<std::string> kPointColumns;
extern const std::vector<std::string> kResultColumns;

std::vector<Cell> point_cells(const SweepPoint& p);
std::vector<std::string> point_column_names(const SweepSpec& spec);
// One CSV row (no header, no newline) formatted exactly as Table writes it.
std::string csv_row(const std::vector<std::string>& columns, std::vector<Cell> cells);

}  // namespace experiments
