#pragma once
// Each scenario's validation status (configs/reference/validation_status.yaml): what its numbers
// were validated against, with the error, and what is known to disagree with its paper. Scenario
// outputs end with their entry, `specdse list validation` prints the table, and docs/validation.md
// renders the same table (validation_status_markdown; a test keeps the page in step).
#include <optional>
#include <string>
#include <vector>

#include "experiments/output/table.hpp"

namespace experiments {

struct ValidationStatus {
  std::string name;       // a scenario (or the command that runs it)
  std::string validated;  // against what, with the error
  std::string disagrees;  // known disagreements with the paper
  std::string details;    // the docs page (path#anchor, from the repository root)
};

// Every entry; InputError naming the file and key for a malformed one or a repeated name.
std::vector<ValidationStatus> validation_statuses(const std::string& config_dir);
// The entry of `name`, if there is one.
std::optional<ValidationStatus> validation_status(const std::string& name, const std::string& config_dir);
// "validation: ...; known to disagree: ...; details: ..." for a footer.
std::string validation_footer(const ValidationStatus& s);
// "\n" + that for scenario `name`, or "" when it has no entry (for a hand-made command's footer).
std::string validation_note(const std::string& name, const std::string& config_dir);
// The table `specdse list validation` prints and docs/validation.md holds (as Markdown).
Table validation_table(const std::string& config_dir);
std::string validation_status_markdown(const std::string& config_dir);

}  // namespace experiments
