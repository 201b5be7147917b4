// Sweep worker processes (experiments/sweep/process_pool.hpp): every point's result comes back
// from a forked worker, errors keep their kind and message, a worker that dies is an error, and
// a sweep on the SystemC engine gives the same bytes with one worker and with worker processes.
#include <catch2/catch.hpp>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments/sweep/process_pool.hpp"
#include "experiments/sweep/sweep_runner.hpp"
#include "experiments/sweep/sweep_spec.hpp"
#include "models/config_error.hpp"
#include "tests/experiments/sweep_test_support.hpp"

namespace fs = std::filesystem;

TEST_CASE("worker processes return every result in index order, computed outside this process", "[sweep]") {
  REQUIRE(experiments::fork_is_safe());  // a test case runs single-threaded in its own process
  const std::string parent = std::to_string(::getpid());
  std::map<std::size_t, std::string> got;
  experiments::run_in_worker_processes(
      25, 3, [](std::size_t k) { return std::to_string(k * k) + " " + std::to_string(::getpid()); },
      [&](std::size_t k, const std::string& text) {
        CHECK(k == got.size());  // in index order, whichever worker finished first
        CHECK(got.emplace(k, text).second);
      });
  REQUIRE(got.size() == 25);
  for (const auto& [k, text] : got) {
    const auto space = text.find(' ');
    CHECK(text.substr(0, space) == std::to_string(k * k));
    CHECK(text.substr(space + 1) != parent);
  }
}

TEST_CASE("points start in the hand-out order given and still come back in index order", "[sweep]") {
  REQUIRE(experiments::fork_is_safe());
  // One worker computes the points one after another: its own counter says when each started.
  static int started = 0;
  const std::vector<std::size_t> order{3, 0, 4, 1, 2};
  std::vector<std::string> got;
  experiments::run_in_worker_processes(
      5, 1, [](std::size_t) { return std::to_string(started++); },
      [&](std::size_t k, const std::string& text) {
        CHECK(k == got.size());
        got.push_back(text);
      },
      order);
  CHECK(got == std::vector<std::string>{"1", "3", "4", "0", "2"});
  // Not a permutation of 0..n-1: a programming error, refused before any worker starts.
  auto ignore = [](std::size_t, const std::string&) {};
  auto zero = [](std::size_t) { return std::string("0"); };
  CHECK_THROWS_AS(experiments::run_in_worker_processes(3, 2, zero, ignore, {0, 1}), std::logic_error);
  CHECK_THROWS_AS(experiments::run_in_worker_processes(3, 2, zero, ignore, {0, 1, 1}), std::logic_error);
  CHECK_THROWS_AS(experiments::run_in_worker_processes(3, 2, zero, ignore, {0, 1, 3}), std::logic_error);
}

TEST_CASE("a worker's bad-input error and other errors reach the caller with their message", "[sweep]") {
  auto failing_at = [](std::size_t bad, bool input) {
    return [bad, input](std::size_t k) -> std::string {
      if (k != bad) return "ok";
      if (input) throw models::InputError("spec.yaml: key 'x': bad value");
      throw std::runtime_error("engine failure");
    };
  };
  auto ignore = [](std::size_t, const std::string&) {};
  try {
    experiments::run_in_worker_processes(10, 2, failing_at(4, true), ignore);
    FAIL("expected an InputError");
  } catch (const models::InputError& e) {
    CHECK(std::string(e.what()) == "spec.yaml: key 'x': bad value");
  }
  try {
    experiments::run_in_worker_processes(10, 2, failing_at(7, false), ignore);
    FAIL("expected a runtime_error");
  } catch (const models::InputError&) {
    FAIL("the kind must be kept");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "engine failure");
  }
}

TEST_CASE("a worker's out-of-memory stays one, and workers do not fork workers of their own", "[sweep]") {
  CHECK_THROWS_AS(experiments::run_in_worker_processes(
                      4, 2,
                      [](std::size_t k) -> std::string {
                        if (k == 1) throw std::bad_alloc();
                        return "ok";
                      },
                      [](std::size_t, const std::string&) {}),
                  std::bad_alloc);
  std::string nested;
  experiments::run_in_worker_processes(
      1, 2, [](std::size_t) { return std::string(experiments::fork_is_safe() ? "fork" : "threads"); },
      [&](std::size_t, const std::string& text) { nested = text; });
  CHECK(nested == "threads");
  CHECK(experiments::fork_is_safe());  // this process still may
}

TEST_CASE("a worker process that dies is reported, not waited for forever", "[sweep]") {
  try {
    experiments::run_in_worker_processes(
        6, 2,
        [](std::size_t k) -> std::string {
          if (k == 3) ::kill(::getpid(), SIGKILL);
          return "ok";
        },
        [](std::size_t, const std::string&) {});
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("died") != std::string::npos);
    CHECK(std::string(e.what()).find("signal 9") != std::string::npos);
  }
}

TEST_CASE("a sim-engine sweep gives the same bytes on one worker and on worker processes", "[sweep]") {
  const auto d = sweep_test::temp_dir("processes");
  const auto spec = experiments::load_sweep_spec(sweep_test::write(d / "s.yaml", R"(name: sim_workers
engine: sim
x_max: 24
axes:
  hardware: v80
  model: llama-3.1-8b-instruct
  algorithm: longspec-tree
  source_table: t3-4
  context: [128, 1024]
  memory.bandwidth_gbs: [100, 1000, 10000]
)"));
  const models::ConfigRegistry reg;
  experiments::SweepRunOptions one, many;
  one.out_path = (d / "one.csv").string();
  one.threads = 1;
  many.out_path = (d / "many.csv").string();
  many.threads = 3;
  const auto s1 = experiments::run_sweep(spec, reg, one);
  const auto s3 = experiments::run_sweep(spec, reg, many);
  CHECK_FALSE(s1.worker_processes);
  CHECK(s3.worker_processes);
  CHECK(s3.threads == 3);
  CHECK(s3.computed == spec.size());
  const std::string a = sweep_test::read(one.out_path);
  CHECK(a == sweep_test::read(many.out_path));
  const std::string rows = sweep_test::body(a);
  CHECK(std::count(rows.begin(), rows.end(), '\n') == 1 + 6);  // header + one row per point
  fs::remove_all(d);
}
