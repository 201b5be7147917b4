#include "experiments/reproductions/paper_reference.hpp"
#include "models/input_file.hpp"

#include <fmt/format.h>

#include <fstream>

#include "models/config_error.hpp"
#include "sim/io/csv.hpp"

namespace experiments {

std::vector<std::map<std::string, std::string>> load_reference(const std::string& path) {
  std::ifstream in = models::open_input_file(path, "reference table");
  if (!in) throw models::InputError(fmt::format("{}: cannot open reference table", path));
  std::vector<std::map<std::string, std::string>> rows;
  std::vector<std::string> header;
  sim::CsvReader reader(in, path);
  for (sim::CsvRecord record; reader.next(record);) {
    if (header.empty()) {
      header = record.cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < record.cells.size(); ++i) row[header[i]] = record.cells[i];
    rows.push_back(row);
  }
  return rows;
}

}  // namespace experiments
