#include "experiments/output/table.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiments/output/output_path.hpp"
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
  switch (format) {
    case OutputFormat::csv: {
      out << sim::csv_line(columns_) << '\n';
      for (const auto& row : rows_) {
        std::vector<std::string> cells;
        for (const auto& c : row) cells.push_back(cell_text(c, true));
        out << sim::csv_line(cells) << '\n';
      }
      break;
    }
    case OutputFormat::json: {
      out << "[\n";
      for (std::size_t r = 0; r < rows_.size(); ++r) {
        out << "  {";
        for (std::size_t i = 0; i < columns_.size(); ++i) {
          // Strings through nlohmann-json; numbers keep their fixed formatting (byte-stable output).
          out << (i ? ", " : "") << sim::json_string(columns_[i]) << ": ";
          const Cell& c = rows_[r][i];
          if (std::holds_alternative<std::string>(c)) out << sim::json_string(std::get<std::string>(c));
          else out << cell_text(c, true);
        }
        out << "}" << (r + 1 < rows_.size() ? "," : "") << "\n";
      }
      out << "]\n";
      break;
    }
    case OutputFormat::table: {
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
      auto line = [&](const std::vector<std::string>& v, const std::vector<Cell>* row) {
        for (std::size_t i = 0; i < v.size(); ++i) {
          const bool right = row && !std::holds_alternative<std::string>((*row)[i]);
          out << (i ? "  " : "") << (right ? fmt::format("{:>{}}", v[i], width[i])
                                            : fmt::format("{:<{}}", v[i], width[i]));
        }
        out << '\n';
      };
      line(columns_, nullptr);
      std::vector<std::string> rule;
      for (auto w : width) rule.push_back(std::string(w, '-'));
      line(rule, nullptr);
      for (std::size_t r = 0; r < rows_.size(); ++r) line(cells[r], &rows_[r]);
      if (!footer_.empty()) out << footer_ << '\n';
      break;
    }
  }
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

void write_file_atomic(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  // Through a symbolic link, the target is replaced: renaming onto the link itself would turn
  // it into a regular file and leave the file it named stale.
  const fs::path p(resolve_output_path(path));
  if (check_output_target(path)) {
    // A character device (/dev/null, a terminal): written in place, never renamed over.
    std::ofstream out(p, std::ios::binary);
    if (out) out << content << std::flush;
    if (!out) throw models::InputError(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
    return;
  }
  std::error_code ec;
  if (p.has_parent_path()) {
    fs::create_directories(p.parent_path(), ec);
    if (ec)
      throw models::InputError(
          fmt::format("{}: cannot create the folder {}: {}", path, p.parent_path().string(), ec.message()));
  }
  // A temporary name of its own per process and call, so two writers never share one; hidden,
  // and ending in .tmp, so a run killed before the rename leaves nothing that looks like output.
  static std::atomic<unsigned> counter{0};
  const fs::path tmp = p.parent_path() / fmt::format(".{}.{}.{}.tmp", p.filename().string(), ::getpid(), counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw models::InputError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
    out << content;
    out.flush();
    if (!out) {
      const int err = errno;
      out.close();
      fs::remove(tmp, ec);
      throw models::InputError(fmt::format("{}: write failed: {}", path, std::strerror(err)));
    }
  }
  fs::rename(tmp, p, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(tmp, ec);
    throw models::InputError(fmt::format("{}: cannot rename into place: {}", path, why));
  }
}

}  // namespace experiments
