// Safe sweep outputs: a sweep killed with SIGKILL in the middle of its rows and run
// again writes exactly the bytes of an uninterrupted run, and never leaves a partial result
// under the output's own name; a second run on the same output while the first is alive is
// refused, and a killed run leaves no stale lock behind (its resume takes the lock).
#include <catch2/catch.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "experiments/output/output_lock.hpp"
#include "experiments/sweep/sweep_runner.hpp"
#include "tests/experiments/cli_run.hpp"
#include "tests/experiments/sweep_test_support.hpp"

using namespace sweep_test;

namespace {

// 2 contexts x 40 bandwidths: long enough (tens of ms per row on one thread) to kill it
// between rows, short enough for a test.
const char* const kSpec = R"(name: kill_resume
axes:
  hardware: v80
  model: llama-3.1-8b-instruct
  algorithm: longspec-tree
  context: [128, 1024]
  memory.bandwidth_gbs: {from: 25, to: 51200, count: 40, scale: log}
)";
constexpr std::size_t kPoints = 80;

// Starts `specdse sweep` in a child process (output discarded); returns its pid.
pid_t start_sweep(const std::string& spec, const std::string& out) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    ::execl(SPECDSE_SPECDSE_EXE, SPECDSE_SPECDSE_EXE, "sweep", "--spec", spec.c_str(), "--out", out.c_str(),
            "--threads", "1", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

// Lines after the fingerprint that leads a sweep's output and journal (the header and the rows).
std::size_t line_count(const fs::path& p) {
  const std::string s = sweep_test::body(read(p));
  return std::size_t(std::count(s.begin(), s.end(), '\n'));
}

// Waits until `file` holds at least `lines` complete lines (or the child ended); false on the
// latter or after 60 s.
bool wait_for_lines(pid_t child, const fs::path& file, std::size_t lines) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::exists(file) && line_count(file) >= lines) return true;
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return false;
}

void kill_and_reap(pid_t child) {
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
}

}  // namespace

TEST_CASE("a sweep killed with SIGKILL mid-run and resumed gives the bytes of an uninterrupted run",
          "[sweep][safe-output]") {
  const auto d = temp_dir("kill_resume");
  const std::string spec = write(d / "s.yaml", kSpec);
  const auto full = d / "full.csv";
  REQUIRE(cli_test::run("sweep --spec " + spec + " --out " + full.string() + " --threads 1").status == 0);
  REQUIRE(line_count(full) == kPoints + 1);
  CHECK_FALSE(fs::exists(experiments::sweep_journal_path(full.string())));

  const auto out = d / "killed.csv";
  const fs::path journal = experiments::sweep_journal_path(out.string());
  const pid_t child = start_sweep(spec, out.string());
  const bool mid_run = wait_for_lines(child, journal, 1 + 5);  // header and five rows
  kill_and_reap(child);
  REQUIRE(mid_run);
  const std::size_t rows_at_kill = line_count(journal) - 1;
  INFO("rows written before the kill: " << rows_at_kill);
  CHECK(rows_at_kill < kPoints);
  CHECK_FALSE(fs::exists(out));  // no partial result under the output's name

  const auto resumed = cli_test::run("sweep --spec " + spec + " --out " + out.string() + " --threads 2");
  REQUIRE(resumed.status == 0);
  CHECK(resumed.output.find(std::to_string(rows_at_kill) + " resumed") != std::string::npos);
  CHECK(read(out) == read(full));
  CHECK_FALSE(fs::exists(journal));
  // The killed run's lock file was taken over by the resume and removed when it finished.
  CHECK_FALSE(fs::exists(d / ".killed.csv.lock"));
  fs::remove_all(d);
}

TEST_CASE("a row cut in half in the journal is recomputed on resume", "[sweep][safe-output]") {
  const auto d = temp_dir("torn_row");
  const std::string spec_text = R"(name: torn
axes:
  hardware: v80
  model: llama-3.1-8b-instruct
  algorithm: longspec-tree
  context: [128, 1024]
  memory.bandwidth_gbs: [100, 200, 400]
)";
  const auto spec = experiments::load_sweep_spec(write(d / "s.yaml", spec_text));
  const models::ConfigRegistry reg;
  experiments::SweepRunOptions o;
  o.out_path = (d / "full.csv").string();
  o.threads = 1;
  experiments::run_sweep(spec, reg, o);
  const std::string full = read(o.out_path);
  // The journal a kill leaves: the header, two rows and the first bytes of the third (a
  // journal's rows carry their checksums).
  std::string journal = sweep_test::fingerprint(full) + experiments::sweep_journal_header(spec) + "\n";
  for (std::size_t cut = full.find('\n', sweep_test::fingerprint(full).size()) + 1, row = 0; row < 3; ++row) {
    const std::size_t end = full.find('\n', cut);
    const std::string line = experiments::sweep_journal_row(full.substr(cut, end - cut));
    journal += row < 2 ? line + "\n" : line.substr(0, 7);
    cut = end + 1;
  }
  o.out_path = (d / "out.csv").string();
  write(experiments::sweep_journal_path(o.out_path), journal);
  const auto stats = experiments::run_sweep(spec, reg, o);
  CHECK(stats.reused == 2);
  CHECK(stats.computed == spec.size() - 2);
  CHECK(stats.dropped.empty());  // a row cut short is the normal end of a killed run's journal
  CHECK(read(o.out_path) == full);
  CHECK_FALSE(fs::exists(experiments::sweep_journal_path(o.out_path)));
  fs::remove_all(d);
}

TEST_CASE("a sweep whose output another run is writing is refused with one line, exit 2", "[sweep][safe-output]") {
  const auto d = temp_dir("lock");
  const std::string spec = write(d / "s.yaml", kSpec);
  const auto out = d / "out.csv";
  {
    // The lock a running sweep holds (held here, so the test does not race a child's timing;
    // the kill test above shows that a killed holder leaves no stale lock: its resume runs).
    const experiments::OutputLock running(experiments::OutputLock::for_file(out.string()), out.string());
    const auto second = cli_test::run("sweep --spec " + spec + " --out " + out.string());
    INFO(second.output);
    CHECK(second.status == 2);
    CHECK(second.output.find("another specdse run is writing it") != std::string::npos);
    CHECK(std::count(second.output.begin(), second.output.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(out));
    CHECK_FALSE(fs::exists(experiments::sweep_journal_path(out.string())));
  }
  // A shard of a job array writes beside it in the same folder: one lock per output file.
  const auto shard = cli_test::run("sweep --spec " + spec + " --shard 0/40 --out " + (d / "shard0.csv").string());
  CHECK(shard.status == 0);
  fs::remove_all(d);
}
