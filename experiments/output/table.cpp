#include "experiments/output/table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/config_error.hpp"
#include "sim/io/csv.hpp"
#include "sim/io/json_string.hpp"

namespace experiments {

OutputFormat parse_format(const std::string& s) {
  if (s == "table") return OutputFormat::table;
  if (s == "csv") return OutputFormat::csv;
  if (s == "json") return OutputFormat::json;
  throw models::InputError("--format: expected table, csv or json, got '" + s + "'");
}

namespace {
std::atomic<bool> wide_tables{false};
}  // namespace

void set_wide_tables(bool wide) { wide_tables = wide; }

std::string text_notes(const std::string& text) { return wide_tables ? text : wrap_footer(text); }

void Table::add_meta(std::string key, MetaValue value) {
  for (const auto& [k, v] : meta_)
    if (k == key) throw std::logic_error("table meta field '" + key + "' set twice");
  if (key == "rows" || key == "footer") throw std::logic_error("table meta field '" + key + "' is reserved");
  meta_.emplace_back(std::move(key), std::move(value));
}

void Table::set_narrow_columns(std::vector<std::string> columns) {
  for (const auto& c : columns)
    if (std::find(columns_.begin(), columns_.end(), c) == columns_.end())
      throw std::logic_error("narrow column '" + c + "' is not a column of the table");
  narrow_columns_ = std::move(columns);
}

std::string wrap_footer(const std::string& text, std::size_t width) {
  // Each line word-wrapped greedily at spaces; a continuation indented two spaces; a word longer
  // than the width (a path) on a line of its own.
  constexpr const char* kIndent = "  ";
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    std::string current;
    std::size_t from = 0;
    while (from < line.size()) {
      std::size_t space = line.find(' ', from);
      if (space == std::string::npos) space = line.size();
      const std::string word = line.substr(from, space - from);
      if (current.empty() || current == kIndent) current += word;
      else if (current.size() + 1 + word.size() <= width) current += " " + word;
      else {
        out += current + "\n";
        current = kIndent + word;
      }
      from = space + 1;
    }
    out += current + "\n";
    start = end + 1;
  }
  if (!out.empty()) out.pop_back();
  return out;
}

void Table::add_row(std::vector<Cell> row) {
  if (row.size() != columns_.size())
    throw std::logic_error(fmt::format("table row has {} cells for {} columns", row.size(), columns_.size()));
  for (const auto& c : row)
    if (const auto* n = std::get_if<Number>(&c); n && !std::isfinite(n->value))
      throw std::logic_error("non-finite number in a result table");
  rows_.push_back(std::move(row));
}

namespace {

std::string format_number(double v, int digits) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e-3 && a < 1e9) {
    // Fixed notation with `digits` significant digits.
    const int before = a >= 1 ? int(std::floor(std::log10(a))) + 1 : 0;
    int after = std::max(0, digits - before);
    if (a < 1) after = digits - 1 - int(std::floor(std::log10(a)));
    std::string s = fmt::format("{:.{}f}", v, after);
    return s;
  }
  return fmt::format("{:.{}e}", v, std::max(0, digits - 1));
}

}  // namespace

std::string Table::meta_text(const MetaValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  if (const auto* list = std::get_if<std::vector<std::string>>(&value)) return fmt::format("{}", fmt::join(*list, " | "));
  if (const auto* d = std::get_if<double>(&value)) return std::isfinite(*d) ? fmt::format("{:.9g}", *d) : "null";
  if (const auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
  return std::get<bool>(value) ? "true" : "false";
}

namespace {

std::string cell_text(const Cell& c, bool full_precision) {
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
  const auto& n = std::get<Number>(c);
  return full_precision ? fmt::format("{:.9g}", n.value) : format_number(n.value, n.digits);
}

}  // namespace

void Table::print(std::ostream& out, OutputFormat format) const {
  out << to_string(format);
}

std::string Table::to_string(OutputFormat format) const {
  std::ostringstream out;
  // The meta fields and then the footer, as (key, value) pairs for CSV and JSON.
  std::vector<std::pair<std::string, MetaValue>> fields = meta_;
  if (!footer_.empty()) fields.emplace_back("footer", footer_);
  switch (format) {
    case OutputFormat::csv: {
      for (const auto& [key, value] : fields) {
        std::string v = meta_text(value);
        for (char& ch : v)
          if (ch == '\n' || ch == '\r') ch = ' ';  // one line per field
        out << "# " << key << ": " << v << '\n';
      }
      out << sim::csv_line(columns_) << '\n';
      for (const auto& row : rows_) {
        std::vector<std::string> cells;
        for (const auto& c : row) cells.push_back(cell_text(c, true));
        out << sim::csv_line(cells) << '\n';
      }
      break;
    }
    case OutputFormat::json: {
      out << "{\n";
      for (const auto& [key, value] : fields) {
        out << "  " << sim::json_string(key) << ": ";
        if (const auto* v = std::get_if<std::string>(&value)) {
          out << sim::json_string(*v);
        } else if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
          out << "[";
          for (std::size_t i = 0; i < list->size(); ++i) out << (i ? ", " : "") << sim::json_string((*list)[i]);
          out << "]";
        } else {
          out << meta_text(value);  // a number or true / false: JSON's own spelling
        }
        out << ",\n";
      }
      out << "  \"rows\": [\n";
      for (std::size_t r = 0; r < rows_.size(); ++r) {
        out << "    {";
        for (std::size_t i = 0; i < columns_.size(); ++i) {
          // Strings through nlohmann-json; numbers keep their fixed formatting (byte-stable output).
          out << (i ? ", " : "") << sim::json_string(columns_[i]) << ": ";
          const Cell& c = rows_[r][i];
          // An empty cell is no value: null, not "" (a number column's missing entry stays a non-string).
          if (const auto* text = std::get_if<std::string>(&c)) out << (text->empty() ? "null" : sim::json_string(*text));
          else out << cell_text(c, true);
        }
        out << "}" << (r + 1 < rows_.size() ? "," : "") << "\n";
      }
      out << "  ]\n}\n";
      break;
    }
    case OutputFormat::table:
      out << text_table();
      break;
  }
  return out.str();
}

std::string Table::text_table() const {
  std::ostringstream out;
  std::vector<std::size_t> width(columns_.size());
  std::vector<std::vector<std::string>> cells;
  for (std::size_t i = 0; i < columns_.size(); ++i) width[i] = columns_[i].size();
  for (const auto& row : rows_) {
    cells.emplace_back();
    for (std::size_t i = 0; i < row.size(); ++i) {
      cells.back().push_back(cell_text(row[i], false));
      width[i] = std::max(width[i], cells.back().back().size());
    }
  }
  // The columns shown: all, or the narrow ones when all would not fit kTableWidth.
  std::vector<std::size_t> shown;
  std::size_t total = 0;
  for (std::size_t i = 0; i < columns_.size(); ++i) total += width[i] + (i ? 2 : 0);
  const bool narrow = !wide_tables && !narrow_columns_.empty() && total > kTableWidth;
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (!narrow || std::find(narrow_columns_.begin(), narrow_columns_.end(), columns_[i]) != narrow_columns_.end())
      shown.push_back(i);
  // Still too wide (or any table too wide without narrow columns): the widest text columns give
  // way (their cells cut, ending in "..."), down to their header or kMinCutWidth characters.
  constexpr std::size_t kMinCutWidth = 16;
  const std::vector<std::size_t> full_width = width;
  const bool cut = !wide_tables && total > kTableWidth;
  bool any_cut = false;
  if (cut) {
    std::vector<bool> text_column(columns_.size(), true);
    for (const auto& row : rows_)
      for (std::size_t i = 0; i < row.size(); ++i)
        if (!std::holds_alternative<std::string>(row[i])) text_column[i] = false;
    auto shown_width = [&] {
      std::size_t w = 0;
      for (std::size_t k = 0; k < shown.size(); ++k) w += width[shown[k]] + (k ? 2 : 0);
      return w;
    };
    while (shown_width() > kTableWidth) {
      std::size_t widest = columns_.size();
      for (std::size_t i : shown)
        if (text_column[i] && width[i] > std::max(kMinCutWidth, columns_[i].size()) &&
            (widest == columns_.size() || width[i] > width[widest]))
          widest = i;
      if (widest == columns_.size()) break;  // nothing left to cut
      --width[widest];  // one character at a time: the widest columns end up alike
      any_cut = true;
    }
    // Cutting did not make it fit (numbers are never cut): the table goes on in blocks (below),
    // where a cell needs cutting only if it is wider than a block can hold beside its leader.
    if (shown_width() > kTableWidth) {
      width = full_width;
      any_cut = false;
      // The leader repeats in every block: at most half a line of it.
      const std::size_t leader = shown.front(), half = std::max(kTableWidth / 2, columns_[leader].size());
      if (text_column[leader] && width[leader] > half) {
        width[leader] = half;
        any_cut = true;
      }
      const std::size_t room = kTableWidth - std::min(kTableWidth / 2, width[leader] + 2);
      for (std::size_t k = 1; k < shown.size(); ++k)
        if (text_column[shown[k]] && width[shown[k]] > std::max(room, columns_[shown[k]].size())) {
          width[shown[k]] = std::max(room, columns_[shown[k]].size());
          any_cut = true;
        }
    }
  }
  // Still too wide (numbers are never cut): the shown columns continue in further blocks of at
  // most kTableWidth characters, each led by the first column (the row's name), as pandas prints
  // a wide frame. Every value stays on screen.
  std::vector<std::vector<std::size_t>> blocks{{}};
  if (!shown.empty()) blocks.front().push_back(shown.front());  // a table of no columns: one empty block
  std::size_t block_width = shown.empty() ? 0 : width[shown.front()];
  for (std::size_t k = 1; k < shown.size(); ++k) {
    const std::size_t i = shown[k];
    // A block holds at least one column beside its leader.
    if (wide_tables || blocks.back().size() == 1 || block_width + 2 + width[i] <= kTableWidth) {
      blocks.back().push_back(i);
      block_width += 2 + width[i];
    } else {
      blocks.push_back({shown.front(), i});
      block_width = width[shown.front()] + 2 + width[i];
    }
  }
  auto fit = [&](const std::string& cell, std::size_t w) {
    return cell.size() <= w ? cell : cell.substr(0, w - 3) + "...";
  };
  auto line = [&](const std::vector<std::size_t>& block, const std::vector<std::string>& v,
                  const std::vector<Cell>* row) {
    std::string text;
    for (std::size_t k = 0; k < block.size(); ++k) {
      const std::size_t i = block[k];
      const bool right = row && !std::holds_alternative<std::string>((*row)[i]);
      const std::string cell = fit(v[i], width[i]);
      text += (k ? "  " : "") + (right ? fmt::format("{:>{}}", cell, width[i]) : fmt::format("{:<{}}", cell, width[i]));
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << '\n';
  };
  std::vector<std::string> rule;
  for (auto w : width) rule.push_back(std::string(w, '-'));
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    if (b) out << '\n';
    line(blocks[b], columns_, nullptr);
    line(blocks[b], rule, nullptr);
    for (std::size_t r = 0; r < rows_.size(); ++r) line(blocks[b], cells[r], &rows_[r]);
  }
  std::string footer = footer_;
  auto note = [&](const std::string& text) { footer += (footer.empty() ? "" : "\n") + text; };
  if (narrow) {
    std::vector<std::string> hidden;
    for (std::size_t i = 0; i < columns_.size(); ++i)
      if (std::find(shown.begin(), shown.end(), i) == shown.end()) hidden.push_back(columns_[i]);
    note(fmt::format("not shown: {} (--wide: every column, no cell cut; or --format csv|json)", fmt::join(hidden, ", ")));
  } else if (any_cut) {
    note(fmt::format("long cells cut to fit {} characters (--wide: uncut; or --format csv|json)", kTableWidth));
  }
  if (blocks.size() > 1)
    note(fmt::format("wider than {} characters: the columns continue in {} blocks, each led by {} (--wide: one "
                     "block; or --format csv|json)",
                     kTableWidth, blocks.size(), columns_[shown.front()]));
  if (!footer.empty()) out << (wide_tables ? footer : wrap_footer(footer)) << '\n';
  return out.str();
}

std::string Table::to_markdown() const {
  std::ostringstream out;
  out << "|";
  for (const auto& c : columns_) out << " " << c << " |";
  out << "\n|";
  for (const auto& row0 : columns_) { (void)row0; out << "---|"; }
  out << "\n";
  for (const auto& row : rows_) {
    out << "|";
    for (const auto& c : row) out << " " << cell_text(c, false) << " |";
    out << "\n";
  }
  return out.str();
}

}  // namespace experiments
