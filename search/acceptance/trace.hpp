#pragma once
// Acceptance traces (DESIGN.md contract 3): one draft-verify iteration per line; the line is
// the rank path that the target accepted, ranks separated by spaces, empty when no draft
// token was accepted; '#' starts a comment (to the end of the line).
//
// The reader streams: it holds one line at a time, so traces of millions of lines need
// little memory. Malformed lines raise models::InputError naming the file and line number.
#include <cstdint>
#include <fstream>
#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace search {

// A tree node named by its ancestors' ranks, Medusa style: {0, 1} is the root's best child's
// second-best child. The empty path is the root (the bonus token).
using RankPath = std::vector<int>;

// "0 1 3" (the empty path gives "").
std::string format_rank_path(const RankPath& path);

// Parses one trace line (comment already allowed). Throws models::InputError
// "SOURCE:LINE: rank path: expected ..., got ..." on anything but non-negative integers.
RankPath parse_rank_path(const std::string& line, const std::string& source, std::int64_t line_number);

class TraceReader {
 public:
  // Reads from a file (throws InputError when it cannot be opened).
  explicit TraceReader(const std::string& path);
  // Reads from a stream the caller keeps alive; `source` names it in error messages.
  TraceReader(std::istream& in, std::string source);

  // Next iteration's accepted path; false at the end of the trace. Lines that hold only a
  // comment (or only whitespace before a comment) are skipped: they are not iterations.
  // A line that is empty, or only whitespace, is an iteration with nothing accepted.
  bool next(RankPath& accepted);

  const std::string& source() const { return source_; }
  std::int64_t line_number() const { return line_number_; }      // last line read (1-based)
  std::int64_t iterations() const { return iterations_; }        // paths returned so far

 private:
  std::unique_ptr<std::ifstream> owned_;
  std::istream* in_ = nullptr;
  std::string source_;
  std::string line_;
  std::int64_t line_number_ = 0;
  std::int64_t iterations_ = 0;
};

// Calls visit(path) for every iteration of the trace file; returns the number of iterations.
template <class Visitor>
std::int64_t for_each_iteration(const std::string& path, Visitor&& visit) {
  TraceReader reader(path);
  RankPath accepted;
  while (reader.next(accepted)) visit(static_cast<const RankPath&>(accepted));
  return reader.iterations();
}

// Writes traces in the same format (header lines become '#' comments).
class TraceWriter {
 public:
  explicit TraceWriter(std::ostream& out) : out_(out) {}
  void comment(const std::string& text);
  void write(const RankPath& accepted);

 private:
  std::ostream& out_;
  std::string line_;
};

}  // namespace search
