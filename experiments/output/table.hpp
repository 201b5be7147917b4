#pragma once
// A result table printed as an aligned text table, CSV (header row, SI units in the column
// names) or JSON (array of objects). Numbers are formatted deterministically so the same
// inputs give byte-identical CSV.
#include <cstdint>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace experiments {

enum class OutputFormat { table, csv, json };
OutputFormat parse_format(const std::string& s);

struct Number {
  double value = 0;
  int digits = 4;  // significant digits shown in the text table (CSV/JSON keep 9)
};
using Cell = std::variant<std::string, std::int64_t, Number>;

class Table {
 public:
  explicit Table(std::vector<std::string> columns) : columns_(std::move(columns)) {}
  void add_row(std::vector<Cell> row);
  void print(std::ostream& out, OutputFormat format) const;
  std::string to_string(OutputFormat format) const;
  std::string to_markdown() const;
  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::vector<Cell>>& rows() const { return rows_; }
  // A trailing note printed under the text table only (e.g. a summary line).
  void set_footer(std::string footer) { footer_ = std::move(footer); }

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<Cell>> rows_;
  std::string footer_;
};

// Shorthands for building rows.
inline Cell num(double v, int digits = 4) { return Number{v, digits}; }
inline Cell integer(std::int64_t v) { return v; }
inline Cell text(std::string s) { return s; }

// Writes `content` to `path` atomically (temporary file in the same folder, then rename),
// creating parent folders. Through a symbolic link it writes the link's target, and the link
// stays (experiments/output/output_path.hpp). A character device (/dev/null) is written in place;
// a folder, FIFO, socket or block device is refused (check_output_target).
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace experiments
