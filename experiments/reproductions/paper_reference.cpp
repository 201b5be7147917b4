#include "experiments/reproductions/paper_reference.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "models/config_error.hpp"

namespace experiments {

std::vector<std::map<std::string, std::string>> load_reference(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw models::InputError(fmt::format("{}: cannot open reference table", path));
  std::vector<std::map<std::string, std::string>> rows;
  std::vector<std::string> header;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF files
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::istringstream s(line);
    std::string c;
    while (std::getline(s, c, ',')) cells.push_back(c);
    if (header.empty()) { header = cells; continue; }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

}  // namespace experiments
