#pragma once
// One event-driven timeline for a system: resources (device streams, link lanes, host threads)
// and tasks with dependencies (a forward slice on a device, a transfer on a link, a host step).
// A task starts when its dependencies are done and its resource is free; each resource serves
// its ready tasks in the order they became ready (FIFO), one at a time. A task occupies its
// resource for `busy_s` and is complete `latency_s` later (a link's flight time: the lane is
// free again while the data is still in flight); its dependants are released when it is
// complete. Times are whole picoseconds (each task's durations rounded once).
//
// Ties, so that every run of a graph is the same: what is due at one instant is worked off in
// rounds. In a round, first every resource whose task's busy time ends retires it and starts the
// front of its queue; then the round's completing tasks (those just retired with no latency, and
// in the first round those whose latency ends at the instant) release their dependants in
// task-index order (a task's dependants in task-index order), which join their resources' queues
// in that order. What a round causes at the same instant waits for the next round: an idle
// resource starts a task released in the round, and a task with no busy time ends its service.
// So a task released by a zero-time chain queues behind one that was ready when the instant began.
//
// The scenario solvers build their task graphs on it; `run_timeline` runs the graph on a plain
// discrete-event scheduler (sim/system/timeline.cpp: no SystemC, no global state, so any number
// of runs at once on the caller's threads) and `write_chrome_trace` exports the run for
// Perfetto / chrome://tracing.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace sim {

enum class ResourceKind { device_stream, link, host };
std::string to_string(ResourceKind kind);

struct TimelineResource {
  std::string name;   // e.g. "gpu0", "pcie4-x16:gpu0->gpu1", "host:gpu0"
  ResourceKind kind = ResourceKind::device_stream;
  std::string group;  // trace process (a device or "links")
};

struct TimelineTask {
  std::string name;      // e.g. "stage 0 layers 0-9"
  std::string category;  // "compute", "transfer", "collective", "host", "draft"
  int resource = -1;
  double busy_s = 0;
  double latency_s = 0;
  double bytes = 0;      // transfers: payload
  // Indices of tasks that must complete first (added earlier). What add_task reads: the graph
  // keeps them in TaskGraph::deps(i), and its stored copy of the task has none.
  std::vector<int> deps;
};

// The dependencies of a task being added: a view, as std::string_view is of a string, of a list
// in braces ({a, b}) or a vector, read during the call (the graph keeps its own copy). A
// tensor-parallel step adds ~10^4 tasks of one or two dependencies each, and a vector per task
// cost more to allocate and free than scheduling the task.
class TaskDeps {
 public:
  TaskDeps() = default;
  TaskDeps(std::initializer_list<int> deps) {
    first_ = deps.begin();
    last_ = deps.end();
  }
  TaskDeps(const std::vector<int>& deps) : first_(deps.data()), last_(deps.data() + deps.size()) {}
  TaskDeps(const int* first, const int* last) : first_(first), last_(last) {}
  const int* begin() const { return first_; }
  const int* end() const { return last_; }

 private:
  const int* first_ = nullptr;
  const int* last_ = nullptr;
};

class TaskGraph {
 public:
  // Whether tasks keep their names. Names are for traces (write_chrome_trace) and messages; a
  // caller that writes no trace turns them off, and builders skip formatting them (named()):
  // a tensor-parallel step has ~10^4 collective sends, whose names cost as much as simulating
  // them. The timing is the same either way.
  void set_named(bool named) { named_ = named; }
  bool named() const { return named_; }
  int add_resource(TimelineResource r);
  // Empties the graph (resources and tasks; named() stays) but keeps its arrays' capacity: a
  // caller that builds and runs many graphs one after the other (a grid of pipeline runs of
  // ~10^4 tasks each) refills the same memory instead of faulting in fresh pages every run.
  void clear();
  void reserve_tasks(std::size_t n) {
    tasks_.reserve(n);
    stored_.reserve(n);
    timings_.reserve(n);
    dep_begin_.reserve(n + 1);
    dep_list_.reserve(2 * n);  // a task waits on about two others (its predecessor in program order, its input)
  }
  int add_task(TimelineTask t);  // validates resource and dependency indices
  // The same with the dependencies given apart (t.deps must be empty): no vector per task.
  int add_task(TimelineTask t, TaskDeps deps);
  // A task that occupies `resource` for `busy_s` once `deps` are done; negative entries of
  // `deps` (a step that has no predecessor yet) are no dependency.
  int add_work(int resource, std::string name, std::string category, double busy_s, TaskDeps deps);
  const std::vector<TimelineResource>& resources() const { return resources_; }
  // Tasks are numbered 0 .. task_count() - 1 in the order they were added (repeat_tasks' copies
  // included); task(i) is task i's name, category, resource, durations and bytes.
  std::size_t task_count() const { return stored_.size(); }
  bool empty() const { return stored_.empty(); }
  const TimelineTask& task(int i) const { return tasks_[std::size_t(stored_[std::size_t(i)])]; }
  // Every task in order, for a range-for: for (const TimelineTask& t : graph.tasks()).
  class TaskIterator {
   public:
    TaskIterator(const TaskGraph* g, int i) : g_(g), i_(i) {}
    const TimelineTask& operator*() const { return g_->task(i_); }
    TaskIterator& operator++() { ++i_; return *this; }
    bool operator!=(const TaskIterator& o) const { return i_ != o.i_; }

   private:
    const TaskGraph* g_;
    int i_;
  };
  struct TaskRange {
    TaskIterator first, last;
    TaskIterator begin() const { return first; }
    TaskIterator end() const { return last; }
  };
  TaskRange tasks() const { return {TaskIterator(this, 0), TaskIterator(this, int(task_count()))}; }
  // The dependencies task i was added with, in their order.
  struct DepRange {
    const int* first;
    const int* last;
    const int* begin() const { return first; }
    const int* end() const { return last; }
    std::size_t size() const { return std::size_t(last - first); }
  };
  DepRange deps(int i) const {
    const int* base = dep_list_.data();
    return {base + dep_begin_[std::size_t(i)], base + dep_begin_[std::size_t(i) + 1]};
  }
  // Per task what the scheduler reads: its resource and its durations in whole picoseconds,
  // rounded once when the task is added. Kept beside the tasks, 24 bytes each, so that a run
  // streams through them instead of through the ~120-byte tasks with their names.
  struct Timing {
    std::uint64_t busy_ps = 0, latency_ps = 0;
    int resource = 0;
  };
  const std::vector<Timing>& timings() const { return timings_; }

  // Appends `times` copies of the last `period` tasks (the block), the m-th shifted by m periods:
  // each copy of a task has its resource, durations, bytes, category and name, and depends on
  // d + m period for each dependency d of the original. The block's dependencies must lie in it
  // or in the period before it, as a builder laying out identical layers has them (layer l + 1
  // waits on layer l as layer l waits on layer l - 1); std::logic_error otherwise. The graph is
  // the one the builder would have made by adding the copies itself, and its run is the same to
  // the picosecond (tested); run_timeline also skips over the periods whose state repeats.
  void repeat_tasks(int period, int times);
  // What repeat_tasks made: tasks [first, first + (copies + 1) period), each period a copy of
  // the first shifted by whole periods.
  struct Repeat {
    int first = 0, period = 0, copies = 0;
  };
  const std::vector<Repeat>& repeats() const { return repeats_; }

 private:
  int add(TimelineTask&& t, const int* first_dep, const int* last_dep, bool skip_negative);

  std::vector<TimelineResource> resources_;
  // Each task as added; a copy made by repeat_tasks is not stored again, but refers to its
  // original: stored_[i] is where task i's fields sit in tasks_. (A tensor-parallel step repeats
  // ~10^4 tasks with their names and categories, and copying them was a fifth of its time.)
  std::vector<TimelineTask> tasks_;
  std::vector<int> stored_;
  std::vector<Timing> timings_;
  // Every task's dependencies in one array (task i's from dep_begin_[i] to dep_begin_[i + 1]): a
  // tensor-parallel step has ~10^4 tasks, and a vector each cost more to allocate and free than
  // the scheduler's work on them.
  std::vector<int> dep_list_;
  std::vector<int> dep_begin_{0};
  std::vector<Repeat> repeats_;
  bool named_ = true;
};

struct TimelineRun {
  std::vector<double> start_s, end_s;      // per task: resource acquired, task complete
  std::vector<double> resource_busy_s;     // per resource: sum of busy_s served
  double makespan_s = 0;
  // Scheduler events processed (a cost measure): one per resource service (retiring a task,
  // starting the next, or both) and one per task completion.
  std::int64_t events = 0;
  // Tasks whose times the run wrote by replaying a repeating period (TaskGraph::repeat_tasks)
  // instead of simulating them (a cost measure; the times are the same).
  std::int64_t replayed_tasks = 0;
};

TimelineRun run_timeline(const TaskGraph& graph);

// Chrome trace-event JSON (the "traceEvents" array form): one process per resource group, one
// thread per resource, one complete ("X") event per task with its category and bytes.
void write_chrome_trace(const TaskGraph& graph, const TimelineRun& run, std::ostream& out);

// write_chrome_trace for later (a scenario result's --trace-out): the writer keeps the graph and
// the run alive. Where one object owns both, pass aliasing pointers into it.
using TraceWriter = std::function<void(std::ostream&)>;
TraceWriter chrome_trace_writer(std::shared_ptr<const TaskGraph> graph, std::shared_ptr<const TimelineRun> run);

}  // namespace sim
