#pragma once
// The project's one CSV reader and writer (RFC 4180): a cell holding a comma, a double quote or a
// line break is written in double quotes with its quotes doubled, and read back to the same text,
// so every table specdse writes reads back cell for cell. It lives in sim, the lowest library that
// reads CSV (sim/golden); search and experiments use it from here.
#include <istream>
#include <string>
#include <vector>

namespace sim {

struct CsvReadOptions {
  // Blank lines and lines whose first non-blank character is '#' hold no record (the project's
  // data files carry comments and footers); inside a quoted cell they are text.
  bool skip_comments = true;
  // Spaces and tabs around a cell are dropped (hand-edited inputs align their columns); spaces
  // inside quotes are kept.
  bool trim = false;
};

// One record: its cells, the line it starts on (1-based, for error messages) and its text as
// written, without the line ending (several lines when a quoted cell holds a line break).
struct CsvRecord {
  std::vector<std::string> cells;
  int line = 0;
  std::string text;
};

// Reads records one by one; a line ending "\r\n" is read as "\n". A quote left open at the end
// of the input, or text after a closing quote, is a models::InputError naming source and line.
class CsvReader {
 public:
  CsvReader(std::istream& in, std::string source, CsvReadOptions options = {});
  // The next record into `record`; false at the end of the input.
  bool next(CsvRecord& record);

 private:
  std::istream& in_;
  std::string source_;
  CsvReadOptions options_;
  int line_no_ = 0;
};

// The cells of one record's text (its quoted cells may hold line breaks); `source` and `line`
// name it in an error.
std::vector<std::string> csv_split(const std::string& text, const std::string& source = "CSV", int line = 1,
                                   bool trim = false);

// `value` as a CSV cell: unchanged unless it holds a comma, a double quote or a line break, then
// quoted with its quotes doubled.
std::string csv_cell(const std::string& value);

// The cells joined into one record (no line ending).
std::string csv_line(const std::vector<std::string>& cells);

}  // namespace sim
