#include "sim/golden/measured_csv.hpp"
#include "models/input_file.hpp"

#include <fmt/format.h>

#include <fstream>

#include "models/config_error.hpp"
#include "sim/io/csv.hpp"

namespace sim {

void for_each_measured_record(const std::string& csv_path, const std::string& header,
                              const std::function<void(const std::vector<std::string>&, const std::string&, int)>& fn) {
  std::ifstream in = models::open_input_file(csv_path, "measured CSV");
  if (!in) throw models::InputError(fmt::format("{}: cannot open the measured CSV", csv_path));
  CsvReader reader(in, csv_path);
  bool header_seen = false;
  for (CsvRecord r; reader.next(r);) {
    if (!header_seen) {
      if (r.text.rfind(header, 0) != 0)
        throw models::InputError(fmt::format("{}:{}: header: expected {}, got '{}'", csv_path, r.line, header, r.text));
      header_seen = true;
      continue;
    }
    fn(r.cells, r.text, r.line);
  }
  if (!header_seen) throw models::InputError(fmt::format("{}: empty: expected the header {}", csv_path, header));
}

bool measured_header_starts(const std::string& csv_path, const std::string& prefix) {
  std::ifstream in = models::open_input_file(csv_path, "measured CSV");
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') return line.rfind(prefix, 0) == 0;
  return false;
}

}  // namespace sim
