#pragma once
// Runs a program from an argument vector (posix_spawnp, PATH searched), with no shell in
// between: arguments holding spaces, quotes or '$' reach the program as they are, which
// hand-quoted shell strings did not guarantee. Used for the plot scripts and the Python probe.
#include <string>
#include <vector>

namespace experiments {

// Where a child's stdout or stderr goes.
enum class Stream {
  inherit,   // this process's own stream
  null,      // /dev/null
  to_stderr, // this process's stderr (stdout only: plot chatter stays off a parseable stdout)
  capture,   // into ProcessResult::output (stdout and stderr both may be captured, interleaved)
};

struct ProcessOptions {
  Stream out = Stream::inherit;
  Stream err = Stream::inherit;
  std::string out_file;  // when not empty, stdout is written to this file (truncated) instead
  std::string err_file;  // when not empty, stderr is written to this file (truncated) instead
};

struct ProcessResult {
  // The exit status; 128 + N when killed by signal N; 127 when the program could not be started.
  int status = 127;
  std::string output;  // what the captured streams printed
};

// Runs argv[0] (looked up in PATH when it holds no '/') with argv, waits for it.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace experiments
