#include "sim/io/csv.hpp"

#include <fmt/format.h>

#include <sstream>

#include "models/config_error.hpp"

namespace sim {

namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }

void strip_cr(std::string& line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
}

// Parses one record starting with `line`; `more` supplies the following line when a quoted cell
// runs past the end of this one (false: no more input). `text` collects the record as written.
template <class More>
std::vector<std::string> parse_record(std::string line, More&& more, const std::string& source, int first_line,
                                      bool trim, std::string& text) {
  enum class State { cell_start, unquoted, quoted, after_quote };
  std::vector<std::string> cells;
  std::string cell;
  std::size_t unquoted_end = 0;  // cell.size() after its last non-blank character (for trim)
  State state = State::cell_start;
  int line_no = first_line;
  text = line;
  auto finish = [&] {
    if (trim && state == State::unquoted) cell.resize(unquoted_end);
    cells.push_back(std::move(cell));
    cell.clear();
    unquoted_end = 0;
    state = State::cell_start;
  };
  for (std::size_t i = 0;; ++i) {
    if (i == line.size()) {
      if (state != State::quoted) break;
      // A quoted cell holds a line break: the record goes on on the next line.
      if (!more(line))
        throw models::InputError(fmt::format("{}: line {}: expected a closing '\"' for the quoted cell opened "
                                             "on line {}, got the end of the file", source, line_no, first_line));
      ++line_no;
      text += '\n' + line;
      cell += '\n';
      i = std::size_t(-1);
      continue;
    }
    const char c = line[i];
    switch (state) {
      case State::cell_start:
        if (trim && blank(c)) break;
        if (c == '"') {
          state = State::quoted;
          break;
        }
        state = State::unquoted;
        [[fallthrough]];
      case State::unquoted:
        if (c == ',') {
          finish();
        } else {
          cell += c;
          if (!blank(c)) unquoted_end = cell.size();
        }
        break;
      case State::quoted:
        if (c != '"') {
          cell += c;
        } else if (i + 1 < line.size() && line[i + 1] == '"') {
          cell += '"';
          ++i;
        } else {
          state = State::after_quote;
        }
        break;
      case State::after_quote:
        if (c == ',') {
          finish();
        } else if (!(trim && blank(c))) {
          throw models::InputError(fmt::format("{}: line {}: expected ',' after the closing '\"' of a quoted cell, "
                                               "got '{}'", source, line_no, line.substr(i)));
        }
        break;
    }
  }
  finish();
  return cells;
}

}  // namespace

CsvReader::CsvReader(std::istream& in, std::string source, CsvReadOptions options)
    : in_(in), source_(std::move(source)), options_(options) {}

bool CsvReader::next(CsvRecord& record) {
  std::string line;
  while (std::getline(in_, line)) {
    ++line_no_;
    strip_cr(line);
    if (options_.skip_comments) {
      const auto first = line.find_first_not_of(" \t");
      if (first == std::string::npos || line[first] == '#') continue;
    }
    record.line = line_no_;
    auto more = [&](std::string& next_line) {
      if (!std::getline(in_, next_line)) return false;
      ++line_no_;
      strip_cr(next_line);
      return true;
    };
    record.cells = parse_record(std::move(line), more, source_, record.line, options_.trim, record.text);
    return true;
  }
  return false;
}

std::vector<std::string> csv_split(const std::string& text, const std::string& source, int line, bool trim) {
  std::istringstream lines(text);
  std::string first;
  std::getline(lines, first);
  strip_cr(first);
  auto more = [&](std::string& next_line) {
    if (!std::getline(lines, next_line)) return false;
    strip_cr(next_line);
    return true;
  };
  std::string unused;
  return parse_record(first, more, source, line, trim, unused);
}

std::string csv_cell(const std::string& value) {
  if (value.find_first_of(",\"\n\r") == std::string::npos) return value;
  std::string out = "\"";
  for (char c : value) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string out;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i) out += ',';
    out += csv_cell(cells[i]);
  }
  return out;
}

}  // namespace sim
