// experiments/process/run_process: programs run from an argument vector, no shell: arguments
// reach the program verbatim, exit statuses and captured output come back.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "experiments/process/run_process.hpp"

using experiments::ProcessOptions;
using experiments::run_process;
using experiments::Stream;

TEST_CASE("run_process: arguments reach the program verbatim, no shell expands them") {
  ProcessOptions o;
  o.out = Stream::capture;
  const auto r = run_process({"printf", "%s|", "a b", "it's", "$HOME", "\"q\"", "*"}, o);
  CHECK(r.status == 0);
  CHECK(r.output == "a b|it's|$HOME|\"q\"|*|");
}

TEST_CASE("run_process: exit status, a missing program and a signal") {
  CHECK(run_process({"sh", "-c", "exit 3"}).status == 3);
  CHECK(run_process({"/nonexistent/program"}).status == 127);
  CHECK(run_process({"sh", "-c", "kill -TERM $$"}).status == 128 + 15);
  CHECK(run_process({}).status == 127);
}

TEST_CASE("run_process: stdout and stderr to files, /dev/null or captured together") {
  const auto dir = std::filesystem::temp_directory_path() / ("run_process_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ProcessOptions files;
  files.out_file = (dir / "out.txt").string();
  files.err_file = (dir / "err.txt").string();
  CHECK(run_process({"sh", "-c", "echo out; echo err >&2"}, files).status == 0);
  auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  CHECK(slurp(dir / "out.txt") == "out\n");
  CHECK(slurp(dir / "err.txt") == "err\n");
  ProcessOptions both;
  both.out = Stream::capture;
  both.err = Stream::capture;
  CHECK(run_process({"sh", "-c", "echo out; echo err >&2"}, both).output == "out\nerr\n");
  ProcessOptions quiet;
  quiet.out = Stream::null;
  quiet.err = Stream::null;
  const auto q = run_process({"sh", "-c", "echo out; echo err >&2"}, quiet);
  CHECK(q.status == 0);
  CHECK(q.output.empty());
  std::filesystem::remove_all(dir);
}
