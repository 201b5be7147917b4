// The timeline's scheduler on its own: its tie order (sim/system/timeline.hpp states it) and
// runs from several threads at once, which need no lock because a run has no global state.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sim/system/timeline.hpp"

using namespace sim;

namespace {

constexpr double kUs = 1e-6;  // durations in these tests are whole microseconds

bool same_run(const TimelineRun& a, const TimelineRun& b) {
  return a.start_s == b.start_s && a.end_s == b.end_s && a.resource_busy_s == b.resource_busy_s &&
         a.makespan_s == b.makespan_s && a.events == b.events;
}

// A random graph shaped like a scenario's: a few device streams and link lanes, tasks with one
// to three earlier dependencies, durations of whole microseconds (so that many tasks end at the
// same instant and the tie order is exercised), some with no busy time or a link latency.
TaskGraph random_graph(std::uint32_t seed, int resources, int tasks) {
  std::mt19937 rng(seed);
  TaskGraph g;
  for (int r = 0; r < resources; ++r)
    g.add_resource({fmt::format("r{}", r), r % 2 ? ResourceKind::link : ResourceKind::device_stream, "g"});
  constexpr int kMaxDurationUs = 4;      // busy time and latency in 0..4 us
  constexpr int kZeroBusyPercent = 10;   // tasks of no busy time (host bookkeeping)
  constexpr int kLatencyPercent = 30;    // tasks with a flight time (transfers)
  constexpr int kMaxDeps = 3;
  constexpr int kDepWindow = 20;         // dependencies on recent tasks, as a step's are
  for (int t = 0; t < tasks; ++t) {
    TimelineTask task;
    task.name = fmt::format("t{}", t);
    task.category = "compute";
    task.resource = int(rng() % std::uint32_t(resources));
    task.busy_s = int(rng() % 100) < kZeroBusyPercent ? 0 : (1 + int(rng() % kMaxDurationUs)) * kUs;
    task.latency_s = int(rng() % 100) < kLatencyPercent ? (1 + int(rng() % kMaxDurationUs)) * kUs : 0;
    const int deps = t == 0 ? 0 : int(rng() % (kMaxDeps + 1));
    for (int k = 0; k < deps; ++k) {
      const int window = std::min(t, kDepWindow);
      const int d = t - 1 - int(rng() % std::uint32_t(window));
      if (std::find(task.deps.begin(), task.deps.end(), d) == task.deps.end()) task.deps.push_back(d);
    }
    g.add_task(task);
  }
  return g;
}

}  // namespace

TEST_CASE("timeline: tasks ready at the same instant on one resource are served in task order") {
  TaskGraph g;
  const int a = g.add_resource({"a", ResourceKind::device_stream, "a"});
  const int b = g.add_resource({"b", ResourceKind::device_stream, "b"});
  const int r = g.add_resource({"r", ResourceKind::device_stream, "r"});
  // One completion releases two tasks on r: the lower index first.
  const int src = g.add_work(a, "src", "compute", 1 * kUs, {});
  const int first = g.add_work(r, "first", "compute", 1 * kUs, {src});
  const int second = g.add_work(r, "second", "compute", 1 * kUs, {src});
  // Two completions at 3 us release one task each on r: the lower completing index first, so
  // `from_low` (added later) goes before `from_high`.
  const int low = g.add_work(a, "low", "compute", 2 * kUs, {src});
  const int high = g.add_work(b, "high", "compute", 3 * kUs, {});
  const int from_high = g.add_work(r, "from high", "compute", 1 * kUs, {high});
  const int from_low = g.add_work(r, "from low", "compute", 1 * kUs, {low});
  const TimelineRun run = run_timeline(g);
  CHECK(run.start_s[std::size_t(first)] == Approx(1 * kUs));
  CHECK(run.start_s[std::size_t(second)] == Approx(2 * kUs));
  CHECK(run.end_s[std::size_t(low)] == Approx(3 * kUs));
  CHECK(run.end_s[std::size_t(high)] == Approx(3 * kUs));
  CHECK(run.start_s[std::size_t(from_low)] == Approx(3 * kUs));
  CHECK(run.start_s[std::size_t(from_high)] == Approx(4 * kUs));
  CHECK(run.makespan_s == Approx(5 * kUs));
}

TEST_CASE("timeline: a transfer arriving and a compute ending at one instant release in task order") {
  TaskGraph g;
  const int dev = g.add_resource({"gpu", ResourceKind::device_stream, "gpu"});
  const int lane = g.add_resource({"lane", ResourceKind::link, "links"});
  const int r = g.add_resource({"r", ResourceKind::device_stream, "r"});
  // Both complete at 2 us: the compute (no latency) when its busy time ends, the transfer when
  // its latency ends. Neither is first by kind; task order decides.
  const int compute = g.add_work(dev, "compute", "compute", 2 * kUs, {});
  TimelineTask send{"send", "transfer", lane, 1 * kUs, 1 * kUs, 64, {}};
  const int transfer = g.add_task(send);
  const int after_transfer = g.add_work(r, "after transfer", "compute", 1 * kUs, {transfer});
  const int after_compute = g.add_work(r, "after compute", "compute", 1 * kUs, {compute});
  const TimelineRun run = run_timeline(g);
  CHECK(run.end_s[std::size_t(compute)] == Approx(2 * kUs));
  CHECK(run.end_s[std::size_t(transfer)] == Approx(2 * kUs));
  CHECK(run.start_s[std::size_t(after_compute)] == Approx(2 * kUs));
  CHECK(run.start_s[std::size_t(after_transfer)] == Approx(3 * kUs));
}

TEST_CASE("timeline: chains of no duration finish at their instant, behind tasks already ready") {
  SECTION("a chain of zero busy time and latency over two resources") {
    TaskGraph g;
    const int x = g.add_resource({"x", ResourceKind::device_stream, "x"});
    const int y = g.add_resource({"y", ResourceKind::host, "y"});
    constexpr int kLength = 6;
    int prev = -1;
    for (int k = 0; k < kLength; ++k) prev = g.add_work(k % 2 ? y : x, fmt::format("z{}", k), "host", 0, {prev});
    const TimelineRun run = run_timeline(g);
    for (int k = 0; k < kLength; ++k) {
      CHECK(run.start_s[std::size_t(k)] == 0);
      CHECK(run.end_s[std::size_t(k)] == 0);
    }
    CHECK(run.makespan_s == 0);
    // Each task: a service that starts it, one a round later that retires it, and its completion.
    CHECK(run.events == 3 * kLength);
  }
  SECTION("a task released at an instant by a zero-time chain queues behind one ready before") {
    TaskGraph g;
    const int r = g.add_resource({"r", ResourceKind::device_stream, "r"});
    const int other = g.add_resource({"o", ResourceKind::host, "o"});
    const int zero = g.add_work(r, "zero", "host", 0, {});
    const int waiting = g.add_work(r, "waiting", "compute", 1 * kUs, {});
    const int released = g.add_work(r, "released", "compute", 1 * kUs, {zero});
    const int elsewhere = g.add_work(other, "elsewhere", "host", 1 * kUs, {zero});
    const TimelineRun run = run_timeline(g);
    CHECK(run.end_s[std::size_t(zero)] == 0);
    CHECK(run.start_s[std::size_t(waiting)] == 0);
    CHECK(run.start_s[std::size_t(released)] == Approx(1 * kUs));
    CHECK(run.start_s[std::size_t(elsewhere)] == 0);
  }
  SECTION("a chain of no latency: each task starts when the one before ends") {
    TaskGraph g;
    const int x = g.add_resource({"x", ResourceKind::device_stream, "x"});
    const int y = g.add_resource({"y", ResourceKind::device_stream, "y"});
    constexpr int kLength = 5;
    int prev = -1;
    for (int k = 0; k < kLength; ++k) prev = g.add_work(k % 2 ? y : x, fmt::format("c{}", k), "compute", 1 * kUs, {prev});
    const TimelineRun run = run_timeline(g);
    for (int k = 0; k < kLength; ++k) {
      CHECK(run.start_s[std::size_t(k)] == Approx(k * kUs));
      CHECK(run.end_s[std::size_t(k)] == Approx((k + 1) * kUs));
    }
  }
}

TEST_CASE("timeline: runs on several threads at once equal the serial runs, without a lock") {
  constexpr int kGraphs = 6;
  constexpr int kRepeats = 4;  // each thread runs its graph this often while the others run theirs
  constexpr int kTasks = 3000;
  std::vector<TaskGraph> graphs;
  for (int i = 0; i < kGraphs; ++i) graphs.push_back(random_graph(std::uint32_t(1000 + i), 3 + i, kTasks));
  std::vector<TimelineRun> serial;
  for (const TaskGraph& g : graphs) serial.push_back(run_timeline(g));

  std::vector<std::vector<TimelineRun>> parallel(kGraphs);
  std::vector<std::thread> threads;
  for (int i = 0; i < kGraphs; ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < kRepeats; ++k) parallel[std::size_t(i)].push_back(run_timeline(graphs[std::size_t(i)]));
    });
  for (std::thread& t : threads) t.join();

  for (int i = 0; i < kGraphs; ++i) {
    INFO("graph " << i);
    CHECK(serial[std::size_t(i)].makespan_s > 0);
    REQUIRE(parallel[std::size_t(i)].size() == std::size_t(kRepeats));
    for (const TimelineRun& run : parallel[std::size_t(i)]) CHECK(same_run(run, serial[std::size_t(i)]));
  }
  // The graphs differ, so equal results are not one graph's run returned everywhere.
  CHECK_FALSE(same_run(serial[0], serial[1]));
}

namespace {

// A graph with a repeated block: a random prefix, a block of `period` tasks whose dependencies
// lie in the block or the period before it, `copies` copies of it and a few tasks after. With
// `declare` the copies come from TaskGraph::repeat_tasks (so the run may replay periods), else
// they are added task by task with the same dependencies (the run simulates every task).
TaskGraph periodic_graph(std::uint32_t seed, int resources, int period, int copies, bool barrier, bool declare) {
  std::mt19937 rng(seed);
  TaskGraph g;
  g.set_named(false);
  for (int r = 0; r < resources; ++r)
    g.add_resource({fmt::format("r{}", r), r % 2 ? ResourceKind::link : ResourceKind::device_stream, "g"});
  auto random_task = [&](int id, int window_first) {
    TimelineTask t;
    t.category = "compute";
    t.resource = int(rng() % std::uint32_t(resources));
    t.busy_s = int(rng() % 100) < 10 ? 0 : (1 + int(rng() % 4)) * kUs;
    t.latency_s = int(rng() % 100) < 30 ? (1 + int(rng() % 4)) * kUs : 0;
    const int deps = 1 + int(rng() % 3);
    for (int k = 0; k < deps && id > window_first; ++k) {
      const int d = window_first + int(rng() % std::uint32_t(id - window_first));
      if (std::find(t.deps.begin(), t.deps.end(), d) == t.deps.end()) t.deps.push_back(d);
    }
    return t;
  };
  const int prefix = 2 * period;
  for (int i = 0; i < prefix; ++i) g.add_task(random_task(i, std::max(0, i - 10)));
  // The block: dependencies in it or in the period before; with a barrier, its first task waits
  // for the previous period's last, and its last task for the three before it.
  std::vector<TimelineTask> block;
  for (int i = 0; i < period; ++i) {
    const int id = prefix + i;
    TimelineTask t = random_task(id, prefix - period);
    if (barrier && i == 0) t.deps = {prefix - 1};
    if (barrier && i == period - 1) t.deps = {id - 1, id - 2, id - 3};
    block.push_back(t);
    g.add_task(t);
  }
  if (declare) {
    g.repeat_tasks(period, copies);
  } else {
    for (int m = 1; m <= copies; ++m)
      for (TimelineTask t : block) {
        for (int& d : t.deps) d += m * period;
        g.add_task(t);
      }
  }
  const int n = int(g.task_count());
  for (int i = 0; i < 5; ++i) g.add_task(random_task(n + i, n - period));
  return g;
}

}  // namespace

TEST_CASE("timeline: a repeated block runs as the same graph built task by task, to the bit") {
  // The run replays periods whose state repeats (TaskGraph::repeat_tasks): start and end times,
  // busy sums, makespan and event count must be the simulation's, whether or not it replays.
  int replayed_graphs = 0;
  for (std::uint32_t seed = 1; seed <= 60; ++seed) {
    const int resources = 1 + int(seed % 4), period = 4 + int(seed % 9), copies = 3 + int(seed % 20);
    const bool barrier = seed % 3 != 0;
    INFO("seed " << seed << " resources " << resources << " period " << period << " copies " << copies);
    const TaskGraph declared = periodic_graph(seed, resources, period, copies, barrier, true);
    const TaskGraph plain = periodic_graph(seed, resources, period, copies, barrier, false);
    REQUIRE(declared.task_count() == plain.task_count());
    for (std::size_t t = 0; t < plain.task_count(); ++t) {
      const auto a = declared.deps(int(t)), b = plain.deps(int(t));
      REQUIRE(std::vector<int>(a.begin(), a.end()) == std::vector<int>(b.begin(), b.end()));
    }
    const TimelineRun a = run_timeline(declared), b = run_timeline(plain);
    CHECK(same_run(a, b));
    CHECK(b.replayed_tasks == 0);
    replayed_graphs += a.replayed_tasks > 0;
  }
  CHECK(replayed_graphs >= 20);  // the replay is exercised, not only the simulation
}

TEST_CASE("timeline: repeat_tasks refuses a block that depends on tasks before the period before it") {
  TaskGraph g;
  const int r = g.add_resource({"r", ResourceKind::device_stream, "r"});
  for (int i = 0; i < 6; ++i) g.add_work(r, "t", "compute", 1 * kUs, {i - 1});
  g.add_work(r, "far", "compute", 1 * kUs, {0});  // the block [6, 8) reaches back to task 0
  g.add_work(r, "near", "compute", 1 * kUs, {6});
  CHECK_THROWS_AS(g.repeat_tasks(2, 3), std::logic_error);
  CHECK_NOTHROW(g.repeat_tasks(5, 1));  // period 5: [3, 8), whose dependencies reach back to 0 >= 3 - 5
}
