#include "sim/system/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <ostream>
#include <queue>
#include <stdexcept>
#include <utility>

#include "models/config_error.hpp"
#include "sim/io/json_string.hpp"

namespace sim {

std::string to_string(ResourceKind kind) {
  switch (kind) {
    case ResourceKind::device_stream: return "device";
    case ResourceKind::link: return "link";
    case ResourceKind::host: return "host";
  }
  return "?";
}

int TaskGraph::add_resource(TimelineResource r) {
  resources_.push_back(std::move(r));
  return int(resources_.size()) - 1;
}

int TaskGraph::add_task(TimelineTask t) {
  const int id = int(tasks_.size());
  if (!named_) t.name.clear();
  // Messages name the task, or its index when tasks are unnamed.
  auto what = [&] { return t.name.empty() ? fmt::format("#{}", id) : "'" + t.name + "'"; };

  if (t.resource < 0 || t.resource >= int(resources_.size()))
    throw models::InputError(fmt::format("timeline: task {} names resource {} of {}", what(), t.resource,
                                         resources_.size()));
  for (int d : t.deps)
    if (d < 0 || d >= id)
      throw models::InputError(fmt::format("timeline: task {} depends on task {}, not added before it", what(), d));
  if (!(t.busy_s >= 0) || !(t.latency_s >= 0) || !std::isfinite(t.busy_s) || !std::isfinite(t.latency_s))
    throw models::InputError(fmt::format("timeline: task {} has a negative or non-finite duration", what()));
  dep_list_.insert(dep_list_.end(), t.deps.begin(), t.deps.end());
  dep_begin_.push_back(int(dep_list_.size()));
  t.deps = std::vector<int>();  // kept in dep_list_ (deps(id)), not in the stored task
  tasks_.push_back(std::move(t));
  return id;
}

int TaskGraph::add_work(int resource, std::string name, std::string category, double busy_s, std::vector<int> deps) {
  TimelineTask t;
  t.name = std::move(name);
  t.category = std::move(category);
  t.resource = resource;
  t.busy_s = busy_s;
  deps.erase(std::remove_if(deps.begin(), deps.end(), [](int d) { return d < 0; }), deps.end());
  t.deps = std::move(deps);
  return add_task(std::move(t));
}

namespace {

// Durations are kept in whole picoseconds so that the run is exact and reproducible (sums of
// rounded seconds would drift); seconds are converted back only for reporting.
constexpr double kPsPerSecond = 1e12, kSecondsPerPs = 1e-12;
std::uint64_t to_ps(double seconds) { return std::uint64_t(std::llround(seconds * kPsPerSecond)); }
double to_s(std::uint64_t ps) { return double(ps) * kSecondsPerPs; }

// A plain discrete-event scheduler, private to one call: no global state, so any number of
// timelines run at once on the caller's threads. Time moves forward through a queue of timed
// events (a resource's busy time ends, a task's latency has passed); what is due at one instant
// is then worked off in rounds, each of two steps:
//   1. services: every resource due to serve this round retires its task in service (whose busy
//      time ends now; with no latency it completes in this round's step 2, else `latency` later)
//      and starts the front of its ready queue;
//   2. completions: every task completing this round, in task-index order, releases the
//      dependants it was the last dependency of, in task-index order, to the back of their
//      resources' ready queues.
// Work a round causes at the same instant goes to the next round: there an idle resource starts
// a task released in step 2, and a task started with no busy time ends its service. Nothing in a
// round depends on the order in which the event queue holds equal times, so every run of a graph
// is the same. (The SystemC module this replaced ran these steps as processes in delta cycles,
// but ordered a service end against a completion due at the same instant by its event heap; on
// every scenario graph of `reproduce all` both give the same run to the picosecond.)
class Scheduler {
 public:
  explicit Scheduler(const TaskGraph& g) : graph_(g) {
    const std::size_t nr = g.resources().size(), nt = g.tasks().size();
    run_.start_s.assign(nt, 0);
    run_.end_s.assign(nt, 0);
    run_.resource_busy_s.assign(nr, 0);
    running_.assign(nr, kNone);
    serve_next_flag_.assign(nr, 0);
    queue_head_.assign(nr, kNone);
    queue_tail_.assign(nr, kNone);
    queue_next_.assign(nt, kNone);
    pending_.assign(nt, 0);
    completed_.assign(nt, 0);
    busy_ps_.resize(nt);
    latency_ps_.resize(nt);
    for (std::size_t t = 0; t < nt; ++t) {
      busy_ps_[t] = to_ps(g.tasks()[t].busy_s);
      latency_ps_[t] = to_ps(g.tasks()[t].latency_s);
    }
    // Dependants of task t: dependant_list_[dependant_begin_[t] .. dependant_begin_[t + 1]), in
    // task order (one flat array: a step has ~10^4 tasks and a vector each cost more than the run).
    dependant_begin_.assign(nt + 1, 0);
    for (std::size_t t = 0; t < nt; ++t) {
      pending_[t] = int(g.deps(int(t)).size());
      for (int d : g.deps(int(t))) ++dependant_begin_[std::size_t(d) + 1];
    }
    for (std::size_t t = 0; t < nt; ++t) dependant_begin_[t + 1] += dependant_begin_[t];
    dependant_list_.assign(std::size_t(dependant_begin_[nt]), 0);
    std::vector<int> fill(dependant_begin_.begin(), dependant_begin_.end() - 1);
    for (std::size_t t = 0; t < nt; ++t)
      for (int d : g.deps(int(t))) dependant_list_[std::size_t(fill[std::size_t(d)]++)] = int(t);
  }

  void run() {
    // Tasks without dependencies are ready at time 0, in task order.
    for (std::size_t t = 0; t < graph_.tasks().size(); ++t)
      if (pending_[t] == 0) make_ready(int(t));
    run_instant();
    while (!timed_.empty()) {
      now_ps_ = timed_.top().at_ps;
      while (!timed_.empty() && timed_.top().at_ps == now_ps_) {
        const Timed e = timed_.top();
        timed_.pop();
        if (e.id >= 0)
          completing_.push_back(e.id);
        else
          serve_next_round(~e.id);
      }
      run_instant();
    }
  }

  TimelineRun take_result() { return std::move(run_); }
  bool completed(std::size_t t) const { return completed_[t] != 0; }

 private:
  static constexpr int kNone = -1;

  // A timed event: task `id` completes, or (id < 0) resource ~id ends its task's busy time.
  struct Timed {
    std::uint64_t at_ps;
    int id;
    bool operator>(const Timed& o) const { return at_ps > o.at_ps; }
  };

  void run_instant() {
    while (!serving_next_.empty() || !completing_.empty()) {
      serving_.swap(serving_next_);
      serving_next_.clear();
      for (int r : serving_) serve_next_flag_[std::size_t(r)] = 0;
      for (int r : serving_) serve(r);
      std::sort(completing_.begin(), completing_.end());
      for (int t : completing_) complete(t);
      completing_.clear();
    }
  }

  // Resource r serves in the next round at this instant (once, however many reasons it has).
  void serve_next_round(int r) {
    if (serve_next_flag_[std::size_t(r)]) return;
    serve_next_flag_[std::size_t(r)] = 1;
    serving_next_.push_back(r);
  }

  void make_ready(int t) {
    const std::size_t r = std::size_t(graph_.task(t).resource);
    if (queue_tail_[r] == kNone)
      queue_head_[r] = t;
    else
      queue_next_[std::size_t(queue_tail_[r])] = t;
    queue_tail_[r] = t;
    if (running_[r] == kNone) serve_next_round(int(r));  // a busy resource takes it when it retires
  }

  // Retire the task in service (its busy time ends now) and start the next ready one.
  void serve(int r) {
    ++run_.events;
    const std::size_t ri = std::size_t(r);
    const int cur = running_[ri];
    if (cur != kNone) {
      running_[ri] = kNone;
      const std::uint64_t latency = latency_ps_[std::size_t(cur)];
      if (latency == 0)
        completing_.push_back(cur);
      else
        timed_.push({now_ps_ + latency, cur});
    }
    const int next = queue_head_[ri];
    if (next == kNone) return;  // idle until make_ready
    queue_head_[ri] = queue_next_[std::size_t(next)];
    if (queue_head_[ri] == kNone) queue_tail_[ri] = kNone;
    running_[ri] = next;
    const std::uint64_t busy = busy_ps_[std::size_t(next)];
    run_.start_s[std::size_t(next)] = to_s(now_ps_);
    run_.resource_busy_s[ri] += to_s(busy);
    if (busy == 0)
      serve_next_round(r);
    else
      timed_.push({now_ps_ + busy, ~r});
  }

  void complete(int t) {
    ++run_.events;
    const std::size_t ti = std::size_t(t);
    run_.end_s[ti] = to_s(now_ps_);
    completed_[ti] = 1;
    run_.makespan_s = std::max(run_.makespan_s, run_.end_s[ti]);
    for (int k = dependant_begin_[ti]; k < dependant_begin_[ti + 1]; ++k) {
      const int d = dependant_list_[std::size_t(k)];
      if (--pending_[std::size_t(d)] == 0) make_ready(d);
    }
  }

  const TaskGraph& graph_;
  TimelineRun run_;
  std::uint64_t now_ps_ = 0;
  std::priority_queue<Timed, std::vector<Timed>, std::greater<Timed>> timed_;  // earliest first
  // This round's and the next round's resources to serve, and this round's completions.
  std::vector<int> serving_, serving_next_, completing_;
  std::vector<char> serve_next_flag_;  // per resource: in serving_next_ already
  std::vector<int> running_;           // per resource: task in service, or kNone
  // Per resource, its ready tasks in FIFO order, linked through queue_next_ (a task is queued
  // once, so one array serves every queue without an allocation per resource).
  std::vector<int> queue_head_, queue_tail_, queue_next_;
  std::vector<int> pending_;  // per task: unfinished dependencies
  std::vector<char> completed_;
  std::vector<int> dependant_begin_, dependant_list_;
  // Per task, its busy time and latency in whole picoseconds, rounded once (not at every use).
  std::vector<std::uint64_t> busy_ps_, latency_ps_;
};

}  // namespace

TimelineRun run_timeline(const TaskGraph& graph) {
  Scheduler scheduler(graph);
  scheduler.run();
  // Dependencies only point backwards (add_task checks), so every task must have run.
  for (std::size_t t = 0; t < graph.tasks().size(); ++t)
    if (!scheduler.completed(t))
      throw std::logic_error(fmt::format("timeline: task '{}' never completed", graph.task(int(t)).name));
  return scheduler.take_result();
}

TraceWriter chrome_trace_writer(std::shared_ptr<const TaskGraph> graph, std::shared_ptr<const TimelineRun> run) {
  return [graph = std::move(graph), run = std::move(run)](std::ostream& os) { write_chrome_trace(*graph, *run, os); };
}

void write_chrome_trace(const TaskGraph& graph, const TimelineRun& run, std::ostream& out) {
  // Processes: resource groups in first-seen order; threads: resources.
  std::vector<std::string> groups;
  std::vector<int> pid_of(graph.resources().size());
  for (std::size_t r = 0; r < graph.resources().size(); ++r) {
    const std::string& g = graph.resources()[r].group;
    auto it = std::find(groups.begin(), groups.end(), g);
    if (it == groups.end()) {
      groups.push_back(g);
      it = groups.end() - 1;
    }
    pid_of[r] = int(it - groups.begin()) + 1;
  }
  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&] {
    if (!first) out << ",\n";
    first = false;
  };
  for (std::size_t p = 0; p < groups.size(); ++p) {
    sep();
    out << fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"tid":0,"args":{{"name":{}}}}})", p + 1,
                       json_string(groups[p]));
  }
  for (std::size_t r = 0; r < graph.resources().size(); ++r) {
    sep();
    out << fmt::format(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}}}})", pid_of[r],
                       r + 1, json_string(graph.resources()[r].name + " (" + to_string(graph.resources()[r].kind) + ")"));
  }
  for (std::size_t t = 0; t < graph.tasks().size(); ++t) {
    const TimelineTask& task = graph.tasks()[t];
    const std::size_t r = std::size_t(task.resource);
    sep();
    // Timestamps in microseconds, as the format requires; the event spans the busy time.
    out << fmt::format(
        R"({{"ph":"X","name":{},"cat":{},"pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f},"args":{{"task":{},"bytes":{:.0f},"complete_us":{:.3f}}}}})",
        json_string(task.name), json_string(task.category), pid_of[r], r + 1, run.start_s[t] * 1e6,
        task.busy_s * 1e6, t, task.bytes, run.end_s[t] * 1e6);
  }
  out << "\n]}\n";
}

}  // namespace sim
