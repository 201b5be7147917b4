#pragma once
// Runs the specdse CLI for the window/policies/draft-select tests: exit code and stdout+stderr.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/experiments/cli_run.hpp"  // cli_test::without_comments

namespace window_test {

struct CliRun {
  int exit_code = -1;
  std::string output;
};

inline std::string temp_path(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp ? tmp : "/tmp") + "/specdse_window_test_" + std::to_string(::getpid()) + "_" + name;
}

inline CliRun run_cli(const std::string& args) {
  const std::string out = temp_path("cli_out.txt");
  const std::string cmd = std::string("\"") + SPECDSE_SPECDSE_EXE + "\" " + args + " > \"" + out + "\" 2>&1";
  const int status = std::system(cmd.c_str());
  CliRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(out);
  std::ostringstream ss;
  ss << in.rdbuf();
  r.output = ss.str();
  std::remove(out.c_str());
  return r;
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace window_test
