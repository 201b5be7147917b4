#pragma once
// Measured AAT tables (configs/acceptance/aat_measurements.csv, copied from the measurements
// published with paper 000): one row per (algorithm, target, task, context, tree).
#include <optional>
#include <string>
#include <vector>

namespace search {

struct AatMeasurement {
  std::string algorithm, target_model, task;
  long long context = 0;
  int draft_nodes = 0;         // x = draft_nodes + 1
  std::string tree_shape;      // nodes per depth, e.g. "4 4 3 1"
  double aat = 0;
  int samples = 0;
  std::string source_table;
  int x() const { return draft_nodes + 1; }
};

struct AatQuery {
  std::optional<std::string> algorithm, target_model, task, source_table;
  std::optional<long long> context;
};

class AcceptanceData {
 public:
  static AcceptanceData load(const std::string& path);
  std::vector<AatMeasurement> select(const AatQuery& q) const;
  std::vector<long long> contexts(const AatQuery& q) const;
  // Distinct source tables of the rows `q` selects, sorted. More than one means a fit over those
  // rows pools tables (e.g. a tree-shape study beside the main table); callers say so.
  std::vector<std::string> source_tables(const AatQuery& q) const;
  const std::vector<AatMeasurement>& rows() const { return rows_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<AatMeasurement> rows_;
};

std::string default_acceptance_path();

}  // namespace search
