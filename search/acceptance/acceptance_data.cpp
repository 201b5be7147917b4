#include "search/acceptance/acceptance_data.hpp"
#include "models/input_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "sim/io/csv.hpp"

namespace search {

using models::InputError;

std::string default_acceptance_path() {
  return models::ConfigRegistry::default_config_dir() + "/acceptance/aat_measurements.csv";
}

AcceptanceData AcceptanceData::load(const std::string& path) {
  std::ifstream in = models::open_input_file(path, "acceptance data");
  if (!in) throw InputError(fmt::format("{}: cannot open acceptance data", path));
  AcceptanceData d;
  d.path_ = path;
  std::vector<std::string> header;
  const std::vector<std::string> need = {"algorithm", "target_model", "task", "context",
                                         "draft_nodes", "tree_shape", "aat"};
  std::vector<int> col(need.size(), -1);
  int samples_col = -1, source_col = -1;
  sim::CsvReader reader(in, path);
  for (sim::CsvRecord record; reader.next(record);) {
    const int line_no = record.line;
    const auto& cells = record.cells;
    if (header.empty()) {
      header = cells;
      for (std::size_t i = 0; i < need.size(); ++i) {
        auto it = std::find(header.begin(), header.end(), need[i]);
        if (it == header.end())
          throw InputError(fmt::format("{}: line {}: header lacks column '{}'", path, line_no, need[i]));
        col[i] = int(it - header.begin());
      }
      auto s = std::find(header.begin(), header.end(), "samples");
      samples_col = s == header.end() ? -1 : int(s - header.begin());
      auto t = std::find(header.begin(), header.end(), "source_table");
      source_col = t == header.end() ? -1 : int(t - header.begin());
      continue;
    }
    if (cells.size() < header.size())
      throw InputError(fmt::format("{}: line {}: expected {} columns, got {}", path, line_no,
                                   header.size(), cells.size()));
    AatMeasurement m;
    m.algorithm = cells[col[0]];
    m.target_model = cells[col[1]];
    m.task = cells[col[2]];
    m.tree_shape = cells[col[5]];
    // Whole cells only: "12abc" or "1.8 x" is an error, not 12 or 1.8.
    const auto whole = [&](const std::string& cell, std::size_t used) {
      if (used != cell.size())
        throw InputError(fmt::format("{}: line {}: context, draft_nodes and aat must be numbers, got '{}'", path,
                                     line_no, cell));
    };
    try {
      std::size_t used = 0;
      m.context = std::stoll(cells[col[3]], &used);
      whole(cells[col[3]], used);
      m.draft_nodes = std::stoi(cells[col[4]], &used);
      whole(cells[col[4]], used);
      m.aat = std::stod(cells[col[6]], &used);
      whole(cells[col[6]], used);
      if (samples_col >= 0 && !cells[samples_col].empty()) m.samples = std::stoi(cells[samples_col]);
    } catch (const InputError&) {
      throw;
    } catch (const std::exception&) {
      throw InputError(fmt::format("{}: line {}: context, draft_nodes and aat must be numbers", path, line_no));
    }
    if (m.context < 0 || m.draft_nodes < 0 || !(m.aat >= 1.0) || m.aat > m.draft_nodes + 1 + 1e-9)
      throw InputError(fmt::format("{}: line {}: aat must lie in [1, draft_nodes + 1], got {}", path,
                                   line_no, m.aat));
    if (source_col >= 0) m.source_table = cells[source_col];
    d.rows_.push_back(m);
  }
  if (d.rows_.empty()) throw InputError(fmt::format("{}: no measurements", path));
  return d;
}

std::vector<AatMeasurement> AcceptanceData::select(const AatQuery& q) const {
  std::vector<AatMeasurement> out;
  for (const auto& r : rows_) {
    if (q.algorithm && r.algorithm != *q.algorithm) continue;
    if (q.target_model && r.target_model != *q.target_model) continue;
    if (q.task && r.task != *q.task) continue;
    if (q.source_table && r.source_table != *q.source_table) continue;
    if (q.context && r.context != *q.context) continue;
    out.push_back(r);
  }
  return out;
}

std::vector<long long> AcceptanceData::contexts(const AatQuery& q) const {
  std::vector<long long> out;
  for (const auto& r : select(q)) out.push_back(r.context);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> AcceptanceData::source_tables(const AatQuery& q) const {
  std::vector<std::string> out;
  for (const auto& r : select(q)) out.push_back(r.source_table);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace search
