#include "search/acceptance/trace.hpp"
#include "models/input_file.hpp"

#include <fmt/format.h>

#include <limits>

#include "models/config_error.hpp"

namespace search {

std::string format_rank_path(const RankPath& path) {
  std::string s;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (i) s += ' ';
    s += std::to_string(path[i]);
  }
  return s;
}

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The offending token (for the error message), cut short so a binary file gives a short line.
std::string token_at(const std::string& line, std::size_t pos) {
  std::size_t end = pos;
  while (end < line.size() && !is_blank(line[end]) && line[end] != '#') ++end;
  std::string token = line.substr(pos, std::min<std::size_t>(end - pos, 32));
  for (char& c : token)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return token;
}

// Parses `line` into `out`; returns false (and leaves out unspecified) for a comment-only
// line, which is not an iteration.
bool parse_line(const std::string& line, const std::string& source, std::int64_t line_number,
                RankPath& out) {
  out.clear();
  std::size_t i = 0;
  const std::size_t n = line.size();
  while (i < n) {
    const char c = line[i];
    if (is_blank(c)) {
      ++i;
      continue;
    }
    if (c == '#') return !(out.empty() && line.find_first_not_of(" \t\r") == i);
    if (c < '0' || c > '9')
      models::throw_input_error(fmt::format("{}:{}", source, line_number), "rank path",
                                "non-negative integer ranks separated by spaces",
                                "'" + token_at(line, i) + "'");
    const std::size_t start = i;
    long long value = 0;
    while (i < n && line[i] >= '0' && line[i] <= '9') {
      value = value * 10 + (line[i] - '0');
      if (value > std::numeric_limits<int>::max())
        models::throw_input_error(fmt::format("{}:{}", source, line_number), "rank path",
                                  "ranks that fit an int", "'" + token_at(line, start) + "'");
      ++i;
    }
    if (i < n && !is_blank(line[i]) && line[i] != '#')
      models::throw_input_error(fmt::format("{}:{}", source, line_number), "rank path",
                                "non-negative integer ranks separated by spaces",
                                "'" + token_at(line, start) + "'");
    out.push_back(static_cast<int>(value));
  }
  return true;
}

}  // namespace

RankPath parse_rank_path(const std::string& line, const std::string& source, std::int64_t line_number) {
  RankPath path;
  parse_line(line, source, line_number, path);
  return path;
}

TraceReader::TraceReader(const std::string& path)
    : owned_(std::make_unique<std::ifstream>(models::open_input_file(path, "trace"))), in_(owned_.get()), source_(path) {
  if (!*owned_) models::throw_input_error(path, "trace", "a readable trace file", "cannot open");
}

TraceReader::TraceReader(std::istream& in, std::string source) : in_(&in), source_(std::move(source)) {}

bool TraceReader::next(RankPath& accepted) {
  while (std::getline(*in_, line_)) {
    ++line_number_;
    if (parse_line(line_, source_, line_number_, accepted)) {
      ++iterations_;
      return true;
    }
  }
  if (in_->bad())
    models::throw_input_error(fmt::format("{}:{}", source_, line_number_ + 1), "trace",
                              "a readable line", "read error");
  return false;
}

void TraceWriter::comment(const std::string& text) {
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find('\n', start);
    out_ << "# " << text.substr(start, end == std::string::npos ? std::string::npos : end - start) << '\n';
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

void TraceWriter::write(const RankPath& accepted) {
  line_.clear();
  for (std::size_t i = 0; i < accepted.size(); ++i) {
    if (i) line_ += ' ';
    line_ += std::to_string(accepted[i]);
  }
  line_ += '\n';
  out_ << line_;
}

}  // namespace search
