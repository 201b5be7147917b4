// Sweeps and their worker processes: worker processes die with a sweep killed by SIGKILL, so
// its resume is not refused.
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "experiments/output/output_lock.hpp"
#include "experiments/output/table.hpp"
#include "experiments/sweep/sweep_runner.hpp"
#include "models/config_error.hpp"
#include "tests/experiments/cli_run.hpp"
#include "tests/experiments/sweep_test_support.hpp"

using namespace sweep_test;

namespace {

// The processes whose parent is `parent` (from /proc).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &ppid) == 2 && ppid == parent)
      out.push_back(pid_t(std::stol(name)));
  }
  return out;
}

// Whether process `pid` is still running (not gone, not a zombie waiting to be reaped).
bool running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z' && stat[close + 2] != 'X';
}

}  // namespace

TEST_CASE("worker processes die with a sweep killed by SIGKILL, so its resume is not refused",
          "[sweep][safe-output]") {
  const auto d = temp_dir("worker_death");
  // sim-clocked points take minutes each: the workers are mid-point when the parent is killed.
  const std::string spec = write(d / "s.yaml", R"(name: slow
axes:
  hardware: v80
  model: llama-3.1-8b-instruct
  algorithm: longspec-tree
  context: [128, 1024]
)");
  const std::string out = (d / "out.csv").string();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    ::execl(SPECDSE_SPECDSE_EXE, SPECDSE_SPECDSE_EXE, "sweep", "--quiet", "--engine", "sim-clocked", "--threads", "2",
            "--spec", spec.c_str(), "--out", out.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::vector<pid_t> workers;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (workers.size() < 2 && std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) break;
    workers = children_of(child);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(child, SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  ::waitpid(child, nullptr, 0);
  REQUIRE(workers.size() == 2);

  // The resume takes the lock at once (well within the second allowed; it used to wait for the
  // workers' points: minutes here).
  std::optional<experiments::OutputLock> lock;
  double waited_s = 0;
  while (!lock) {
    try {
      lock.emplace(experiments::OutputLock::for_file(out), out);
    } catch (const models::InputError&) {
      waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
      if (waited_s > 5) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  INFO("lock free " << waited_s << " s after the kill");
  const bool workers_left = std::any_of(workers.begin(), workers.end(), running);
  for (pid_t w : workers)
    if (running(w)) ::kill(w, SIGKILL);  // never leave them computing, whatever the outcome
  CHECK(lock.has_value());
  CHECK(waited_s < 1.0);
  CHECK_FALSE(workers_left);
  lock.reset();
  fs::remove_all(d);
}
