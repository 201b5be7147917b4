#include "sim/system/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <memory>
#include <ostream>
#include <queue>
#include <stdexcept>
#include <utility>

#include "models/config_error.hpp"
#include "sim/io/json_string.hpp"
#include "sim/sc_session.hpp"

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

using sc_core::sc_time;
using sc_core::SC_PS;

// Durations are kept in whole picoseconds (SystemC's default time resolution) so that the run
// is exact and reproducible; seconds are converted back only for reporting.
std::uint64_t to_ps(double seconds) { return std::uint64_t(std::llround(seconds * 1e12)); }
// A whole number of picoseconds as SystemC time: the resolution's unit count, without the
// floating-point scaling of sc_time(double, unit) (a tenth of a timeline run's time went there).
sc_time ps_time(std::uint64_t ps) { return sc_time::from_value(ps); }

// The scheduler: one SC_METHOD per resource that starts its next ready task and re-arms for
// that task's end (no per-cycle wake-ups), and one completion method that releases dependants
// when a task's latency has passed.
SC_MODULE(TimelineScheduler) {
  const TaskGraph* graph = nullptr;
  std::vector<std::deque<int>> ready;        // per resource, FIFO by readiness then task order
  std::vector<int> running;                   // per resource: task in service, -1 idle
  std::vector<int> pending;                   // per task: unfinished dependencies
  std::vector<char> completed;
  // Dependants of task t: dependant_list[dependant_begin[t] .. dependant_begin[t + 1]), in task
  // order (one flat array: a step has ~10^4 tasks and a vector each cost more than the run).
  std::vector<int> dependant_begin, dependant_list;
  std::vector<std::unique_ptr<sc_core::sc_event>> wake;  // per resource
  // (completion time in ps, task), earliest first.
  using Completion = std::pair<std::uint64_t, int>;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<Completion>> completions;
  std::vector<int> due;  // scratch of complete_due
  // Per task, its busy time and latency in whole picoseconds, rounded once (not at every use).
  std::vector<std::uint64_t> busy_ps, latency_ps;
  sc_core::sc_event completion_due;
  TimelineRun run;

  SC_CTOR(TimelineScheduler) {}

  void build(const TaskGraph& g) {
    if (sc_core::sc_get_time_resolution() != sc_time(1, SC_PS))  // what ps_time counts in
      throw std::logic_error("timeline: SystemC's time resolution is not 1 ps");
    graph = &g;
    const std::size_t nr = g.resources().size(), nt = g.tasks().size();
    ready.assign(nr, {});
    running.assign(nr, -1);
    pending.assign(nt, 0);
    completed.assign(nt, 0);
    run.start_s.assign(nt, 0);
    run.end_s.assign(nt, 0);
    run.resource_busy_s.assign(nr, 0);
    busy_ps.resize(nt);
    latency_ps.resize(nt);
    for (std::size_t t = 0; t < nt; ++t) {
      busy_ps[t] = to_ps(g.tasks()[t].busy_s);
      latency_ps[t] = to_ps(g.tasks()[t].latency_s);
    }
    for (std::size_t r = 0; r < nr; ++r) {
      wake.push_back(std::make_unique<sc_core::sc_event>());
      sc_core::sc_spawn_options opt;
      opt.spawn_method();
      opt.set_sensitivity(wake.back().get());
      opt.dont_initialize();
      sc_core::sc_spawn([this, r] { serve(int(r)); }, sc_core::sc_gen_unique_name("resource"), &opt);
    }
    sc_core::sc_spawn_options opt;
    opt.spawn_method();
    opt.set_sensitivity(&completion_due);
    opt.dont_initialize();
    sc_core::sc_spawn([this] { complete_due(); }, "completions", &opt);
    dependant_begin.assign(nt + 1, 0);
    for (std::size_t t = 0; t < nt; ++t) {
      pending[t] = int(g.deps(int(t)).size());
      for (int d : g.deps(int(t))) ++dependant_begin[std::size_t(d) + 1];
    }
    for (std::size_t t = 0; t < nt; ++t) dependant_begin[t + 1] += dependant_begin[t];
    dependant_list.assign(std::size_t(dependant_begin[nt]), 0);
    std::vector<int> fill(dependant_begin.begin(), dependant_begin.end() - 1);
    for (std::size_t t = 0; t < nt; ++t)
      for (int d : g.deps(int(t))) dependant_list[std::size_t(fill[std::size_t(d)]++)] = int(t);
    for (std::size_t t = 0; t < nt; ++t)
      if (pending[t] == 0) make_ready(int(t));
  }

  std::uint64_t now_ps() const { return std::uint64_t(sc_core::sc_time_stamp().value()); }

  void make_ready(int t) {
    const int r = graph->task(t).resource;
    ready[std::size_t(r)].push_back(t);
    if (running[std::size_t(r)] < 0) wake[std::size_t(r)]->notify(sc_core::SC_ZERO_TIME);
  }

  // A resource's method: retire the task in service (if its busy time is over) and start the next.
  void serve(int r) {
    ++run.events;
    const std::size_t ri = std::size_t(r);
    const int cur = running[ri];
    if (cur >= 0) {
      running[ri] = -1;
      schedule_completion(cur, now_ps() + latency_ps[std::size_t(cur)]);
    }
    if (ready[ri].empty()) return;  // idle until make_ready notifies
    const int next = ready[ri].front();
    ready[ri].pop_front();
    running[ri] = next;
    const std::uint64_t busy = busy_ps[std::size_t(next)];
    run.start_s[std::size_t(next)] = double(now_ps()) * 1e-12;
    run.resource_busy_s[ri] += double(busy) * 1e-12;
    sc_core::next_trigger(ps_time(busy));
  }

  void schedule_completion(int t, std::uint64_t at_ps) {
    completions.emplace(at_ps, t);
    completion_due.notify(ps_time(at_ps - now_ps()));  // the earliest notification wins
  }

  // Release dependants of every task whose completion time has come, in task order for ties.
  void complete_due() {
    ++run.events;
    const std::uint64_t now = now_ps();
    while (!completions.empty() && completions.top().first <= now) {
      due.clear();
      while (!completions.empty() && completions.top().first <= now) {
        due.push_back(completions.top().second);
        completions.pop();
      }
      std::sort(due.begin(), due.end());
      for (int t : due) {
        run.end_s[std::size_t(t)] = double(now) * 1e-12;
        completed[std::size_t(t)] = 1;
        run.makespan_s = std::max(run.makespan_s, run.end_s[std::size_t(t)]);
        for (int k = dependant_begin[std::size_t(t)]; k < dependant_begin[std::size_t(t) + 1]; ++k) {
          const int d = dependant_list[std::size_t(k)];
          if (--pending[std::size_t(d)] == 0) make_ready(d);
        }
      }
    }
    if (!completions.empty()) completion_due.notify(ps_time(completions.top().first - now));
  }
};

}  // namespace

TimelineRun run_timeline(const TaskGraph& graph) {
  ScSession session;
  auto scheduler = std::make_unique<TimelineScheduler>("timeline");
  scheduler->build(graph);
  session.run();
  // Dependencies only point backwards (add_task checks), so every task must have run.
  for (std::size_t t = 0; t < graph.tasks().size(); ++t)
    if (!scheduler->completed[t])
      throw std::logic_error(fmt::format("timeline: task '{}' never completed", graph.task(int(t)).name));
  return scheduler->run;
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
