#pragma once
// A result table printed as an aligned text table, CSV (header row, SI units in the column
// names) or JSON. Numbers are formatted deterministically so the same inputs give byte-identical
// CSV.
//
// What a table means beyond its rows (the winner, the engine, the validation status, caveats:
// its `meta` fields, and its footer) reaches every format:
//   - text: the footer under the table, broken into lines of at most kTableWidth characters;
//   - CSV: one leading `# key: value` line per field (a list joined by " | "), then the header;
//     pandas reads it with read_csv(f, comment="#"), the project's CSV reader skips such lines;
//   - JSON: one object, {"key": value, ..., "footer": "...", "rows": [{column: value}, ...]}; an
//     empty cell is null.
// A text table wider than kTableWidth shows only its narrow columns (set_narrow_columns), cuts
// long text cells, and continues in blocks of columns each led by the first, unless --wide
// (set_wide_tables) asks for one block of every column; CSV and JSON always hold every column.
#include <cstdint>
#include <ostream>
#include <functional>
#include <string>
#include <variant>
#include <utility>
#include <vector>

#include "sim/io/atomic_file.hpp"

namespace experiments {

enum class OutputFormat { table, csv, json };
OutputFormat parse_format(const std::string& s);

// The width a text table and its footer lines keep to, unless --wide.
constexpr std::size_t kTableWidth = 120;
// --wide: text tables show every column (set once by the command line, before any output).
void set_wide_tables(bool wide);

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
  // The summary under the table (text), and its "footer" field (CSV, JSON).
  void set_footer(std::string footer) { footer_ = std::move(footer); }
  const std::string& footer() const { return footer_; }
  // A field of what the table means (see above), in the order added; a key once. Numbers and
  // yes/no facts keep their type: JSON numbers and booleans, Python ints, floats and bools (the
  // same variant as search::ScenarioResult::MetaValue).
  using MetaValue = std::variant<std::string, std::vector<std::string>, double, std::int64_t, bool>;
  void add_meta(std::string key, MetaValue value);
  // A field's value as one line of text: a list " | "-joined, a number in full, true / false,
  // null for a missing number (CSV's '# key: value' lines, the HTML report).
  static std::string meta_text(const MetaValue& value);
  const std::vector<std::pair<std::string, MetaValue>>& meta() const { return meta_; }
  // The columns a text table keeps when it would be wider than kTableWidth (in table order;
  // empty: all). The footer then says how many were left out and how to see them.
  void set_narrow_columns(std::vector<std::string> columns);

 private:
  std::string text_table() const;
  std::vector<std::string> columns_;
  std::vector<std::vector<Cell>> rows_;
  std::string footer_;
  std::vector<std::pair<std::string, MetaValue>> meta_;
  std::vector<std::string> narrow_columns_;
};

// `text` word-wrapped into lines of at most `width` characters (continuations indented two
// spaces; a word longer than `width` on a line of its own); its own line breaks kept.
std::string wrap_footer(const std::string& text, std::size_t width = kTableWidth);

// Notes printed under a text table (a reproduction's): wrapped as a footer is, unless --wide.
std::string text_notes(const std::string& text);

// Shorthands for building rows.
inline Cell num(double v, int digits = 4) { return Number{v, digits}; }
inline Cell integer(std::int64_t v) { return v; }
inline Cell text(std::string s) { return s; }

// Outputs are written whole or not at all (sim/io/atomic_file.hpp), every table and file.
using sim::write_file_atomic;

}  // namespace experiments
