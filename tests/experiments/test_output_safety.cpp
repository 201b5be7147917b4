// Output files: written atomically (no temporary left behind, a folder path
// refused), one reproduce run per output folder at a time, and --out at a path that cannot be
// written (a read-only folder, a path through a regular file, a folder where a file is
// expected) is a one-line error with exit status 2 before any work.
#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <set>
#include <array>
#include <chrono>
#include <sstream>
#include <thread>
#include <cstdio>
#include <string>

#include "experiments/cli/heartbeat.hpp"
#include "experiments/output/output_lock.hpp"
#include "experiments/output/table.hpp"
#include "models/config_error.hpp"
#include "tests/experiments/cli_run.hpp"
#include "tests/experiments/sweep_test_support.hpp"

using namespace sweep_test;

namespace {

std::size_t lines_of(const std::string& s) { return std::size_t(std::count(s.begin(), s.end(), '\n')); }

// Expects exit status 2 and a single line of output that contains `what`.
void expect_one_line_error(const std::string& args, const std::string& what) {
  INFO("specdse " << args);
  const auto r = cli_test::run(args);
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK(lines_of(r.output) == 1);
  CHECK(r.output.find(what) != std::string::npos);
}

const char* const kSpec = R"(name: out_paths
axes:
  hardware: v80
  model: llama-3.1-8b-instruct
  algorithm: longspec-tree
  context: 128
)";

}  // namespace

TEST_CASE("write_file_atomic replaces the file whole and leaves no temporary file", "[safe-output]") {
  const auto d = temp_dir("atomic");
  const auto p = d / "sub" / "t.csv";
  experiments::write_file_atomic(p.string(), "a,b\n1,2\n");
  experiments::write_file_atomic(p.string(), "a,b\n3,4\n");
  CHECK(read(p) == "a,b\n3,4\n");
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(d / "sub")) entries += e.path() == p ? 0 : 1;
  CHECK(entries == 0);
  CHECK_THROWS_AS(experiments::write_file_atomic((d / "sub").string(), "x"), models::InputError);
  write(d / "plain", "x");
  CHECK_THROWS_AS(experiments::write_file_atomic((d / "plain" / "t.csv").string(), "x"), models::InputError);
  fs::remove_all(d);
}

TEST_CASE("a second reproduce into a folder that a live run holds is refused", "[safe-output]") {
  const auto d = temp_dir("repro_lock");
  {
    const experiments::OutputLock held(experiments::OutputLock::for_folder(d.string()), d.string());
    expect_one_line_error("reproduce table1 --no-plots --out " + d.string(), "another specdse run is writing it");
    // The same lock taken twice in one process is refused too (each holder opens its own file).
    CHECK_THROWS_AS(experiments::OutputLock(experiments::OutputLock::for_folder(d.string()), d.string()),
                    models::InputError);
  }
  // Released with its holder.
  const experiments::OutputLock again(experiments::OutputLock::for_folder(d.string()), d.string());
  fs::remove_all(d);
}

TEST_CASE("sweep and reproduce: --out at a path that cannot be written is a one-line error, exit 2", "[safe-output]") {
  const auto d = temp_dir("bad_out");
  const std::string spec = write(d / "s.yaml", kSpec);
  const std::string file = write(d / "a_file", "not a folder\n");
  // A path through a regular file.
  expect_one_line_error("sweep --spec " + spec + " --out " + file + "/out.csv", file);
  expect_one_line_error("reproduce table1 --no-plots --out " + file, file);
  // A folder where the sweep's CSV file is expected.
  expect_one_line_error("sweep --spec " + spec + " --out " + d.string(), "is a folder");
  // A read-only folder. Root writes through permission bits, so as root the read-only place
  // is /proc (no regular files can be created there).
  std::string read_only = (d / "read_only").string();
  fs::create_directories(read_only);
  ::chmod(read_only.c_str(), 0555);
  if (::geteuid() == 0) read_only = "/proc";
  expect_one_line_error("sweep --spec " + spec + " --out " + read_only + "/out.csv", read_only);
  expect_one_line_error("reproduce table1 --no-plots --out " + read_only, read_only);
  ::chmod((d / "read_only").c_str(), 0755);
  fs::remove_all(d);
}

TEST_CASE("an output path naming a FIFO or a device is never replaced: FIFOs refused, character devices written in place",
          "[safe-output]") {
  const auto dir = temp_dir("special_outputs");
  const std::string fifo = (dir / "pipe").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  expect_one_line_error("duo --model llama-2-7b --alpha 0.8 --tokens 50 --trace-out " + fifo, "is a FIFO");
  const std::string spec = write(dir / "s.yaml", kSpec);
  // The sweep reads --out back to resume: a FIFO would block that read for ever.
  expect_one_line_error("sweep --spec " + spec + " --out " + fifo, "is a FIFO");
  struct stat st {};
  REQUIRE(::stat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  // A character device node of our own (root may make one; elsewhere this part is skipped): the
  // trace goes through it and the node stays a device.
  const std::string device = (dir / "null").string();
  if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    const auto r = cli_test::run("duo --model llama-2-7b --alpha 0.8 --tokens 50 --trace-out " + device);
    CHECK(r.status == 0);
    REQUIRE(::stat(device.c_str(), &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
  }
  fs::remove_all(dir);
}

TEST_CASE("a failed write to standard output (a full disk, a closed stdout) is an error, not a success", "[safe-output]") {
  for (const char* redirect : {">/dev/full", ">&-"}) {
    INFO(redirect);
    // stderr to the pipe, stdout to the failing target.
    const std::string cmd = std::string(SPECDSE_SPECDSE_EXE) + " list 2>&1 " + redirect;
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    std::string out;
    std::array<char, 512> buf{};
    while (fgets(buf.data(), buf.size(), p)) out += buf.data();
    const int status = pclose(p);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(lines_of(out) == 1);
    CHECK(out.find("writing to standard output failed") != std::string::npos);
  }
}

TEST_CASE("heartbeat: quiet for short runs, a line per period after, none once done", "[safe-output]") {
  std::ostringstream out;
  {
    experiments::Heartbeat beat("demo", 0.05, 0.05, out);
    std::this_thread::sleep_for(std::chrono::milliseconds(180));
  }
  const std::string text = out.str();
  const auto lines = std::count(text.begin(), text.end(), '\n');
  CHECK(lines >= 2);
  CHECK(lines <= 4);
  CHECK_THAT(text, Catch::StartsWith("specdse: demo still running, 0 s\n"));
  const std::string after = out.str();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(out.str() == after);  // the destructor stopped it
  std::ostringstream quiet;
  { experiments::Heartbeat beat("short", 10, 10, quiet); }
  CHECK(quiet.str().empty());
}

namespace {

// Hidden temporaries (".NAME.PID.N.tmp") an atomic write left in `dir`.
std::vector<std::string> temporaries_in(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().filename().string().rfind(".", 0) == 0 && e.path().extension() == ".tmp")
      out.push_back(e.path().filename().string());
  return out;
}

}  // namespace

TEST_CASE("a run stopped by TERM or INT mid-write, or past a file-size limit, leaves no temporary file",
          "[safe-output]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("specdse_test_signal_tmp_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string out = (dir / "trace.txt").string();
  for (const int sig : {SIGTERM, SIGINT}) {
    INFO("signal " << sig);
    // A trace of 10^8 lines streams for longer than the wait below: the signal lands mid-write.
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      std::freopen("/dev/null", "w", stdout);
      std::freopen("/dev/null", "w", stderr);
      ::execl(SPECDSE_SPECDSE_EXE, SPECDSE_SPECDSE_EXE, "trace-gen", "--acceptance-vector", "0.9", "--lines",
              "100000000", "-o", out.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Until the temporary exists (the write has begun), then the signal.
    for (int i = 0; i < 200 && temporaries_in(dir).empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK_FALSE(temporaries_in(dir).empty());
    ::kill(child, sig);
    int status = 0;
    ::waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status));  // it still dies of the signal, as its caller expects
    CHECK((WIFSIGNALED(status) && WTERMSIG(status) == sig));
    CHECK(temporaries_in(dir).empty());
    CHECK_FALSE(fs::exists(out));
  }
  // `ulimit -f`: SIGXFSZ would kill the process mid-write; instead the write fails in one line.
  const auto r = cli_test::run("trace-gen --acceptance-vector 0.6 --lines 100000 -o " + out, true,
                               "ulimit -f 8; " SPECDSE_SPECDSE_EXE);
  CHECK(r.status == 2);
  CHECK(r.output == "specdse: error: " + out + ": write failed: File too large\n");
  CHECK(temporaries_in(dir).empty());
  CHECK_FALSE(fs::exists(out));
  fs::remove_all(dir);
}

TEST_CASE("trace-gen -o streams the trace and summarises it as written, also into a character device",
          "[safe-output]") {
  const auto to_null = cli_test::run("trace-gen --acceptance-vector 0.6,0.1 --lines 1000 --seed 3 -o /dev/null --format csv", false);
  const auto to_stdout = cli_test::run("trace-gen --acceptance-vector 0.6,0.1 --lines 1000 --seed 3", false);
  REQUIRE(to_null.status == 0);
  const auto rows = cli_test::csv(to_null.output);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1][1] == "1000");
  // The summary's node count is the trace's: count the distinct accepted prefixes in the stdout trace.
  std::set<std::string> prefixes;
  std::istringstream in(to_stdout.output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#", 0) == 0) continue;
    std::istringstream ranks(line);
    std::string prefix;
    for (std::string r; ranks >> r;) prefixes.insert(prefix += r + " ");
  }
  CHECK(rows[1][3] == std::to_string(prefixes.size()));
}
