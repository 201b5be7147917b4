#include "experiments/sweep/sweep_rows.hpp"

namespace experiments {

const std::vector<std::string> kPointColumns = {"index", "hardware", "model", "algorithm", "task",
                                                "context", "batch", "engine"};
const std::vector<std::string> kResultColumns = {
    "peak_tflops", "bandwidth_gbs", "flops_per_byte", "aat_context", "ar_tokens_per_s", "best_x",
    "best_tokens_per_s", "speedup", "aat_at_best", "t_verify_s", "t_draft_s", "ridge_x", "regime",
    "sd_case", "status"};

std::vector<Cell> point_cells(const SweepPoint& p) {
  std::vector<Cell> cells = {integer(std::int64_t(p.index)), p.hardware, p.model, p.algorithm, p.task,
                             integer(p.context), integer(p.batch), p.engine};
  for (const auto& [k, v] : p.hardware_overrides) cells.push_back(text(v));
  for (const auto& [k, v] : p.draft_placement) cells.push_back(text(v));
  return cells;
}

std::vector<std::string> point_column_names(const SweepSpec& spec) {
  auto cols = kPointColumns;
  for (const auto& k : spec.hardware_keys()) cols.push_back(k);
  for (const auto& k : spec.draft_placement_keys()) cols.push_back(k);
  return cols;
}

std::string csv_row(const std::vector<std::string>& columns, std::vector<Cell> cells) {
  Table t(columns);
  t.add_row(std::move(cells));
  std::string s = t.to_string(OutputFormat::csv);
  s = s.substr(s.find('\n') + 1);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace experiments
