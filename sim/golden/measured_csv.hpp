#pragma once
// Reading the measured CSVs `specdse golden --measured` compares (cuda/*.py, run on a lent GPU,
// and published measurements in configs/reference/): a header line, then data records; '#' lines
// are comments (sim/io/csv.hpp). Which comparison a file gets is decided by its header.
#include <functional>
#include <string>
#include <vector>

namespace sim {

// Calls fn(cells, text, line_no) for each data record after checking that the first record starts
// with `header`. InputError (one line, naming the file) when the file cannot be opened, is empty
// or its header differs.
void for_each_measured_record(const std::string& csv_path, const std::string& header,
                              const std::function<void(const std::vector<std::string>& cells, const std::string& text,
                                                       int line_no)>& fn);

// Whether the first non-comment line of the file starts with `prefix` (false when it cannot be read).
bool measured_header_starts(const std::string& csv_path, const std::string& prefix);

}  // namespace sim
