#include "experiments/cli/validation_status.hpp"

#include <fmt/format.h>

namespace experiments {

Table validation_table(const std::string& config_dir) {
  Table t({"scenario", "validated", "known_disagreements", "details"});
  for (const auto& s : validation_statuses(config_dir)) t.add_row({s.name, s.validated, s.disagrees, s.details});
  t.set_footer("from configs/reference/validation_status.yaml; docs/validation.md has the evidence");
  return t;
}

std::string validation_status_markdown(const std::string& config_dir) {
  // docs/validation.md sits in docs/: its links are relative to that folder.
  Table t({"scenario", "validated", "known to disagree", "details"});
  for (const auto& s : validation_statuses(config_dir)) {
    std::string link = s.details;
    if (link.rfind("docs/", 0) == 0) link = link.substr(5);
    t.add_row({s.name, s.validated, s.disagrees, fmt::format("[{}]({})", link.substr(0, link.find('#')), link)});
  }
  return t.to_markdown();
}

}  // namespace experiments
