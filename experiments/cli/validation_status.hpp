#pragma once
// The validation status table for `specdse list validation` and docs/validation.md (the entries
// and each scenario's footer line: search/scenarios/validation_status.hpp).
#include <string>

#include "experiments/output/table.hpp"
#include "search/scenarios/validation_status.hpp"

namespace experiments {

using search::validation_footer;
using search::validation_note;
using search::validation_status;
using search::validation_statuses;
using search::ValidationStatus;

Table validation_table(const std::string& config_dir);
std::string validation_status_markdown(const std::string& config_dir);

}  // namespace experiments
