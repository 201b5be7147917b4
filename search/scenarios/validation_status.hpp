#pragma once
// Each scenario's validation status (configs/reference/validation_status.yaml): what its numbers
// were validated against, with the error, and what is known to disagree with its paper. Scenario
// outputs end with their entry, `specdse list validation` prints the table, and docs/validation.md
// renders the same table (validation_status_markdown; a test keeps the page in step).
#include <optional>
#include <string>
#include <vector>

namespace search {

struct ValidationStatus {
  std::string name;       // a scenario (or the command that runs it)
  std::string validated;  // against what, with the error
  std::string disagrees;  // known disagreements with the paper
  std::string details;    // the docs page (path#anchor, from the repository root)
};

std::vector<ValidationStatus> validation_statuses(const std::string& config_dir);
std::optional<ValidationStatus> validation_status(const std::string& name, const std::string& config_dir);
// "validation: ...; known to disagree: ...; details: ..." (the line a scenario's output ends with).
std::string validation_footer(const ValidationStatus& s);
// The footer after a newline, or "" when `name` has no entry.
std::string validation_note(const std::string& name, const std::string& config_dir);

}  // namespace search
