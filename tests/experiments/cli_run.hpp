#pragma once
// Runs the built `specdse` executable with arguments, for the CLI tests: its exit status and
// what it printed (stdout, and stderr unless told otherwise).
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "sim/io/csv.hpp"

namespace cli_test {

struct Result {
  int status;
  std::string output;
};

// `EXE ARGS` (the product's binary unless another is named, e.g. a test's own build of it).
inline Result run(const std::string& args, bool with_stderr = true, const std::string& exe = SPECDSE_SPECDSE_EXE) {
  const std::string cmd = exe + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 512> buf{};
  while (fgets(buf.data(), buf.size(), p)) out += buf.data();
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

// A command's CSV output without its leading '# key: value' lines (the footer's fields): the
// header line first, as before they were added.
inline std::string without_comments(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("# ", 0) != 0) out += line + "\n";
  return out;
}

// The rows of a CSV table as cells (header first); '#' lines (footers) and empty lines skipped;
// quoted cells read back as written (sim/io/csv).
inline std::vector<std::vector<std::string>> csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  sim::CsvReader reader(in, "specdse output");
  for (sim::CsvRecord r; reader.next(r);) rows.push_back(r.cells);
  return rows;
}

// The index of column `name` in a header row (fails the test when absent).
inline std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  FAIL("no column " << name);
  return 0;
}

}  // namespace cli_test
