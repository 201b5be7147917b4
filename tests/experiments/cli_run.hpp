#pragma once
// Runs the built `specdse` executable with arguments, for the CLI tests: its exit status and
// what it printed (stdout, and stderr unless told otherwise).
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace cli_test {

struct Result {
  int status;
  std::string output;
};

inline Result run(const std::string& args, bool with_stderr = true) {
  const std::string cmd = std::string(SPECDSE_SPECDSE_EXE) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 512> buf{};
  while (fgets(buf.data(), buf.size(), p)) out += buf.data();
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

}  // namespace cli_test
