#include "sim/system/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <ostream>
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

namespace {

// Durations are kept in whole picoseconds so that the run is exact and reproducible (sums of
// rounded seconds would drift); seconds are converted back only for reporting.
constexpr double kPsPerSecond = 1e12, kSecondsPerPs = 1e-12;
// The longest task (about 11.6 days): far past any step of any workload, and short enough that
// sums of many tasks stay within the 2^63 ps (about 107 days) the picosecond clock counts.
constexpr double kMaxTaskSeconds = 1e6;
// std::llround for the durations add_task admits (finite, >= 0), without its library call: below
// 2^63 the truncation u is exact, and so are double(u) (the value is whole above 2^52) and the
// fraction left, which rounds half away from zero as llround does.
std::uint64_t to_ps(double seconds) {
  const double ps = seconds * kPsPerSecond;
  if (!(ps >= 0 && ps < 0x1p63)) return std::uint64_t(std::llround(ps));
  const std::uint64_t whole = std::uint64_t(ps);
  return whole + (ps - double(whole) >= 0.5 ? 1 : 0);
}
double to_s(std::uint64_t ps) { return double(ps) * kSecondsPerPs; }

}  // namespace

int TaskGraph::add_resource(TimelineResource r) {
  resources_.push_back(std::move(r));
  return int(resources_.size()) - 1;
}

int TaskGraph::add_task(TimelineTask t) {
  std::vector<int> deps = std::move(t.deps);  // kept in dep_list_ (deps(id)), not in the stored task
  t.deps = std::vector<int>();
  return add(std::move(t), deps.data(), deps.data() + deps.size(), false);
}

int TaskGraph::add_task(TimelineTask t, TaskDeps deps) {
  if (!t.deps.empty()) throw std::logic_error("timeline: add_task with dependencies both in the task and apart");
  return add(std::move(t), deps.begin(), deps.end(), false);
}

void TaskGraph::clear() {
  resources_.clear();
  tasks_.clear();
  stored_.clear();
  timings_.clear();
  dep_list_.clear();
  dep_begin_.assign(1, 0);
  repeats_.clear();
}

int TaskGraph::add(TimelineTask&& t, const int* first_dep, const int* last_dep, bool skip_negative) {
  const int id = int(stored_.size());
  if (!named_) t.name.clear();
  // Messages name the task, or its index when tasks are unnamed.
  auto what = [&] { return t.name.empty() ? fmt::format("#{}", id) : "'" + t.name + "'"; };

  if (t.resource < 0 || t.resource >= int(resources_.size()))
    throw models::InputError(fmt::format("timeline: task {} names resource {} of {}", what(), t.resource,
                                         resources_.size()));
  for (const int* d = first_dep; d != last_dep; ++d)
    if ((*d < 0 && !skip_negative) || *d >= id)
      throw models::InputError(fmt::format("timeline: task {} depends on task {}, not added before it", what(), *d));
  if (!(t.busy_s >= 0) || !(t.latency_s >= 0) || !std::isfinite(t.busy_s) || !std::isfinite(t.latency_s))
    throw models::InputError(fmt::format("timeline: task {} has a negative or non-finite duration", what()));
  if (t.busy_s > kMaxTaskSeconds || t.latency_s > kMaxTaskSeconds)
    throw models::InputError(fmt::format(
        "timeline: task {} takes {:.3g} s, beyond the {:g} s a task may take (a hardware, link or stack value out of "
        "scale?)", what(), std::max(t.busy_s, t.latency_s), kMaxTaskSeconds));
  for (const int* d = first_dep; d != last_dep; ++d)
    if (*d >= 0) dep_list_.push_back(*d);
  dep_begin_.push_back(int(dep_list_.size()));
  // Field by field into place: a Timing built whole and copied in stalled on store forwarding.
  Timing& timing = timings_.emplace_back();
  timing.busy_ps = to_ps(t.busy_s);
  timing.latency_ps = to_ps(t.latency_s);
  timing.resource = t.resource;
  stored_.push_back(int(tasks_.size()));
  tasks_.push_back(std::move(t));
  return id;
}

void TaskGraph::repeat_tasks(int period, int times) {
  const int n = int(stored_.size());
  if (period < 1 || period > n || times < 0)
    throw std::logic_error(fmt::format("timeline: repeat_tasks of {} tasks {} times in a graph of {}", period, times, n));
  if (times == 0) return;
  const int first = n - period;
  for (int i = first; i < n; ++i)
    for (int d : deps(i))
      if (d < first - period)
        throw std::logic_error(fmt::format("timeline: repeat_tasks: task #{} depends on #{}, before the period before "
                                           "the block [{}, {})", i, d, first, n));
  // Room for every copy first: the copies are read from the same arrays.
  const std::size_t copied = std::size_t(period) * std::size_t(times);
  const std::size_t block_deps = std::size_t(dep_begin_[std::size_t(n)] - dep_begin_[std::size_t(first)]);
  stored_.reserve(stored_.size() + copied);
  timings_.reserve(timings_.size() + copied);
  dep_begin_.reserve(dep_begin_.size() + copied);
  dep_list_.reserve(dep_list_.size() + block_deps * std::size_t(times));
  for (int m = 1; m <= times; ++m) {
    const int shift = m * period;
    for (int i = first; i < n; ++i) {
      stored_.push_back(stored_[std::size_t(i)]);
      timings_.push_back(timings_[std::size_t(i)]);
      for (int k = dep_begin_[std::size_t(i)]; k < dep_begin_[std::size_t(i) + 1]; ++k)
        dep_list_.push_back(dep_list_[std::size_t(k)] + shift);
      dep_begin_.push_back(int(dep_list_.size()));
    }
  }
  repeats_.push_back({first, period, times});
}

int TaskGraph::add_work(int resource, std::string name, std::string category, double busy_s, TaskDeps deps) {
  TimelineTask t;
  t.name = std::move(name);
  t.category = std::move(category);
  t.resource = resource;
  t.busy_s = busy_s;
  return add(std::move(t), deps.begin(), deps.end(), /*skip_negative=*/true);
}

namespace {

// A plain discrete-event scheduler, private to one call: no global state (its working arrays
// are its thread's), so any number of timelines run at once on the caller's threads. Time moves
// forward through a queue of timed events (a resource's busy time ends, a task's latency has
// passed); what is due at one instant is then worked off in rounds, each of two steps:
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
//
// Periods (TaskGraph::repeat_tasks): where the graph repeats a block of P tasks, the run takes
// the scheduler's state each time the lowest unfinished task enters a new period, relative to
// that period's first task and the instant (every live task's pending count and completion,
// every resource's task in service and ready queue, every timed event). When it equals the
// state at the previous period's entry, and every task the last period touched repeats (the
// same resource, durations, dependency count and dependants, P tasks later) as far as the next
// periods reach, those periods replay the last one exactly, shifted by P tasks and by the
// period's duration: the run writes their tasks' start and end times and their resources' busy
// sums in the order the simulation would have (the sums are floating point), then resumes from
// the shifted state. The result is the simulation's to the picosecond and in every bit (tested
// against the same graph without its periods declared).
class Scheduler {
 public:
  explicit Scheduler(const TaskGraph& g) : timing_(g.timings().data()), s_(scratch()) {
    const std::size_t nr = g.resources().size(), nt = g.task_count();
    run_.start_s.assign(nt, 0);
    run_.end_s.assign(nt, 0);
    run_.resource_busy_s.assign(nr, 0);
    s_.resources.assign(nr, ResourceState{});
    s_.tasks.resize(nt);
    s_.timed.clear();
    s_.serving.clear();
    s_.serving_next.clear();
    s_.completing.clear();
    // Dependants of task t: dependant_list[dependant_begin[t] .. dependant_begin[t + 1]), in task
    // order (one flat array: a step has ~10^4 tasks and a vector each cost more than the run).
    // Counted into dependant_begin[d + 2], summed, then filled through dependant_begin[d + 1],
    // which leaves every entry at its task's first dependant without a second array.
    std::vector<int>& begin = s_.dependant_begin;
    begin.assign(nt + 2, 0);
    for (std::size_t t = 0; t < nt; ++t) {
      const auto deps = g.deps(int(t));
      s_.tasks[t].pending = int(deps.size());
      s_.tasks[t].completed = 0;
      for (int d : deps) ++begin[std::size_t(d) + 2];
    }
    for (std::size_t i = 2; i < nt + 2; ++i) begin[i] += begin[i - 1];
    s_.dependant_list.resize(std::size_t(begin[nt + 1]));
    for (std::size_t t = 0; t < nt; ++t)
      for (int d : g.deps(int(t))) s_.dependant_list[std::size_t(begin[std::size_t(d) + 1]++)] = int(t);
    dependant_begin_ = begin.data();
    dependant_list_ = s_.dependant_list.data();
    tasks_ = s_.tasks.data();
    resources_ = s_.resources.data();
    task_count_ = nt;
    find_periods(g);
  }

  void run() {
    if (s_.periods.empty())
      simulate<false>();
    else
      simulate<true>();
  }

  TimelineRun take_result() { return std::move(run_); }
  bool all_completed() const { return completed_ == task_count_; }
  // A task that never completed (its dependencies never all did): for the message.
  std::size_t first_incomplete() const {
    for (std::size_t t = 0; t < task_count_; ++t)
      if (!tasks_[t].completed) return t;
    return 0;
  }

 private:
  static constexpr int kNone = -1;

  // A timed event: task `id` completes, or (id < 0) resource ~id ends its task's busy time.
  struct Timed {
    std::uint64_t at_ps;
    int id;
  };
  struct TaskState {
    int pending;        // unfinished dependencies
    int next_in_queue;  // the task behind it in its resource's ready queue, or kNone
    char completed;
  };
  struct ResourceState {
    int running = kNone;  // task in service
    // Its ready tasks in FIFO order, linked through TaskState::next_in_queue (a task is queued
    // once, so no allocation per resource).
    int head = kNone, tail = kNone;
    bool serve_next = false;  // in serving_next already
  };
  // A repeated block of the graph (TaskGraph::Repeat): periods of `period` tasks from `first`;
  // every task in [first + period, end) repeats the one `period` before it.
  struct Period {
    int first = 0, period = 0, end = 0;
  };
  // What the run did since the last period entry: each service start and completion, in order.
  struct Action {
    std::uint64_t at_ps;
    int task;
    bool start;  // else a completion
  };
  // The run's working arrays, kept per thread from run to run: a reproduction runs thousands of
  // timelines, and allocating and zeroing their arrays afresh each time cost a tenth of a run.
  struct Scratch {
    std::vector<TaskState> tasks;
    std::vector<ResourceState> resources;
    std::vector<int> dependant_begin, dependant_list;
    std::vector<Timed> timed;  // a binary heap, earliest first
    // This round's and the next round's resources to serve, and this round's completions.
    std::vector<int> serving, serving_next, completing;
    std::vector<Period> periods;
    std::vector<long long> state, previous_state;  // relative states at the last two period entries
    std::vector<Action> actions;
    std::vector<TaskState> window;
    std::vector<std::pair<std::uint64_t, long long>> events;
  };
  static Scratch& scratch() {
    thread_local Scratch s;
    return s;
  }

  // kPeriods: the graph has periods to skip, so the run tracks its lowest unfinished and highest
  // touched task and records its actions (a graph without them is spared that bookkeeping).
  template <bool kPeriods>
  void simulate() {
    // Tasks without dependencies are ready at time 0, in task order.
    for (std::size_t t = 0; t < task_count_; ++t)
      if (tasks_[t].pending == 0) {
        if (kPeriods) touch(int(t));
        make_ready(int(t));
      }
    run_instant<kPeriods>();
    if (kPeriods) checkpoint();
    std::vector<Timed>& timed = s_.timed;
    while (!timed.empty()) {
      now_ps_ = timed.front().at_ps;
      while (!timed.empty() && timed.front().at_ps == now_ps_) {
        const int id = timed.front().id;
        pop_timed();
        if (id >= 0)
          s_.completing.push_back(id);
        else
          serve_next_round(~id);
      }
      run_instant<kPeriods>();
      if (kPeriods) checkpoint();
    }
  }

  // The event heap, by hand: the order among equal times does not matter (see above), and
  // std::priority_queue's push copied each event through the stack (a store-forwarding stall).
  void push_timed(std::uint64_t at_ps, int id) {
    std::vector<Timed>& h = s_.timed;
    std::size_t i = h.size();
    h.emplace_back();
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (h[parent].at_ps <= at_ps) break;
      h[i] = h[parent];
      i = parent;
    }
    h[i].at_ps = at_ps;
    h[i].id = id;
  }
  void pop_timed() {
    std::vector<Timed>& h = s_.timed;
    const Timed last = h.back();
    h.pop_back();
    const std::size_t n = h.size();
    if (n == 0) return;
    std::size_t i = 0;
    for (std::size_t child = 1; child < n; child = 2 * i + 1) {
      if (child + 1 < n && h[child + 1].at_ps < h[child].at_ps) ++child;
      if (h[child].at_ps >= last.at_ps) break;
      h[i] = h[child];
      i = child;
    }
    h[i] = last;
  }

  template <bool kPeriods>
  void run_instant() {
    std::vector<int>& serving = s_.serving;
    std::vector<int>& completing = s_.completing;
    while (!s_.serving_next.empty() || !completing.empty()) {
      serving.swap(s_.serving_next);
      s_.serving_next.clear();
      for (int r : serving) resources_[r].serve_next = false;
      for (int r : serving) serve<kPeriods>(r);
      std::sort(completing.begin(), completing.end());
      for (int t : completing) complete<kPeriods>(t);
      completing.clear();
    }
  }

  // Resource r serves in the next round at this instant (once, however many reasons it has).
  void serve_next_round(int r) {
    ResourceState& rs = resources_[r];
    if (rs.serve_next) return;
    rs.serve_next = true;
    s_.serving_next.push_back(r);
  }

  void make_ready(int t) {
    const int r = timing_[t].resource;
    ResourceState& rs = resources_[r];
    tasks_[t].next_in_queue = kNone;
    if (rs.tail == kNone)
      rs.head = t;
    else
      tasks_[rs.tail].next_in_queue = t;
    rs.tail = t;
    if (rs.running == kNone) serve_next_round(r);  // a busy resource takes it when it retires
  }

  // Retire the task in service (its busy time ends now) and start the next ready one.
  template <bool kPeriods>
  void serve(int r) {
    ++run_.events;
    ResourceState& rs = resources_[r];
    const int cur = rs.running;
    if (cur != kNone) {
      rs.running = kNone;
      const std::uint64_t latency = timing_[cur].latency_ps;
      if (latency == 0)
        s_.completing.push_back(cur);
      else
        push_timed(now_ps_ + latency, cur);
    }
    const int next = rs.head;
    if (next == kNone) return;  // idle until make_ready
    rs.head = tasks_[next].next_in_queue;
    if (rs.head == kNone) rs.tail = kNone;
    rs.running = next;
    const std::uint64_t busy = timing_[next].busy_ps;
    run_.start_s[std::size_t(next)] = to_s(now_ps_);
    run_.resource_busy_s[std::size_t(r)] += to_s(busy);
    if (kPeriods && recording_) s_.actions.push_back({now_ps_, next, true});
    if (busy == 0)
      serve_next_round(r);
    else
      push_timed(now_ps_ + busy, ~r);
  }

  template <bool kPeriods>
  void complete(int t) {
    ++run_.events;
    ++completed_;
    const double end = to_s(now_ps_);
    run_.end_s[std::size_t(t)] = end;
    run_.makespan_s = std::max(run_.makespan_s, end);
    tasks_[t].completed = 1;
    if (kPeriods) {
      if (recording_) s_.actions.push_back({now_ps_, t, false});
      while (lowest_open_ < task_count_ && tasks_[lowest_open_].completed) ++lowest_open_;
    }
    for (int k = dependant_begin_[t]; k < dependant_begin_[t + 1]; ++k) {
      const int d = dependant_list_[k];
      if (kPeriods) touch(d);
      if (--tasks_[d].pending == 0) make_ready(d);
    }
  }

  void touch(int t) { highest_touched_ = std::max(highest_touched_, t); }

  // --- periods --------------------------------------------------------------------------
  // Whether task j repeats task j - p: the same resource and durations, as many dependencies
  // and its dependants p tasks after the other's (the dependencies are then p after too).
  bool repeats(int j, int p) const {
    const TaskGraph::Timing &a = timing_[j], &b = timing_[j - p];
    if (a.resource != b.resource || a.busy_ps != b.busy_ps || a.latency_ps != b.latency_ps) return false;
    if (tasks_[j].pending != tasks_[j - p].pending) return false;  // before the run: dependency counts
    const int n = dependant_begin_[j + 1] - dependant_begin_[j];
    if (n != dependant_begin_[j - p + 1] - dependant_begin_[j - p]) return false;
    for (int k = 0; k < n; ++k)
      if (dependant_list_[dependant_begin_[j] + k] != dependant_list_[dependant_begin_[j - p] + k] + p) return false;
    return true;
  }

  // The graph's declared periods, each cut where its tasks stop repeating (the last period's
  // tasks feed what follows the block); only those with room to skip a period are kept.
  void find_periods(const TaskGraph& g) {
    s_.periods.clear();
    for (const TaskGraph::Repeat& r : g.repeats()) {
      Period p{r.first, r.period, r.first + r.period};
      const int last = r.first + (r.copies + 1) * r.period;
      while (p.end < last && repeats(p.end, p.period)) ++p.end;
      if (p.end - p.first >= 4 * p.period) s_.periods.push_back(p);
    }
    period_index_ = 0;
  }

  // At the end of an instant: if the lowest unfinished task has entered a new period, take the
  // state there and, where it repeats the previous entry's, skip the periods that replay it.
  void checkpoint() {
    while (period_index_ < s_.periods.size() && int(lowest_open_) >= s_.periods[period_index_].end) {
      ++period_index_;
      forget_periods();
    }
    if (period_index_ == s_.periods.size()) return;
    const Period& p = s_.periods[period_index_];
    if (int(lowest_open_) < p.first) return;
    const long long k = ((long long)lowest_open_ - p.first) / p.period;
    if (k == entered_) return;  // still in the period entered last
    const int base = p.first + int(k) * p.period;
    const bool taken = take_state(base);
    if (taken && k == entered_ + 1 && recorded_ && s_.state == s_.previous_state) {
      // Periods whose tasks all repeat: the touched tasks, P tasks on per period, stay below p.end.
      const long long periods = (p.end - 1 - (long long)highest_touched_) / p.period;
      if (periods >= 1) {
        skip(int(periods), p.period, now_ps_ - entered_at_ps_);
        forget_periods();
        entered_ = k + periods;
        return;
      }
    }
    entered_ = k;
    entered_at_ps_ = now_ps_;
    recorded_ = taken;
    recording_ = taken;
    s_.state.swap(s_.previous_state);
    s_.actions.clear();
    events_at_entry_ = run_.events;
  }

  void forget_periods() {
    entered_ = -2;
    recorded_ = recording_ = false;
    s_.actions.clear();
  }

  // The state relative to task `base` and this instant, into s_.state: false (not taken) when
  // the live tasks span too many periods to be worth comparing.
  bool take_state(int base) {
    std::vector<long long>& st = s_.state;
    st.clear();
    const int low = int(lowest_open_), high = highest_touched_;
    if (high - low > 4 * s_.periods[period_index_].period + 64) return false;
    constexpr long long none = std::numeric_limits<long long>::min();
    auto rel = [&](int t) { return t == kNone ? none : (long long)t - base; };
    st.push_back(low - base);
    st.push_back((long long)high - base);
    for (int t = low; t <= high; ++t) st.push_back((long long)tasks_[t].pending * 2 + tasks_[t].completed);
    for (std::size_t r = 0; r < s_.resources.size(); ++r) {
      const ResourceState& rs = resources_[r];
      st.push_back(rel(rs.running));
      for (int t = rs.head; t != kNone; t = tasks_[t].next_in_queue) st.push_back(rel(t));
      st.push_back(none);
    }
    // Timed events in a canonical order (the heap's array order is not one).
    std::vector<std::pair<std::uint64_t, long long>>& ev = s_.events;
    ev.clear();
    for (const Timed& e : s_.timed) ev.emplace_back(e.at_ps - now_ps_, e.id >= 0 ? rel(e.id) : none + 1 + ~e.id);
    std::sort(ev.begin(), ev.end());
    for (const auto& [at, id] : ev) {
      st.push_back((long long)at);
      st.push_back(id);
    }
    return true;
  }

  // Replays the recorded period `periods` times, shifted by `shift` tasks and `dt` picoseconds
  // each, then moves the live state on by as many.
  void skip(int periods, int shift, std::uint64_t dt) {
    // The live tasks' state, kept before the replay writes completions over the same indices.
    const int low = int(lowest_open_), high = highest_touched_;
    s_.window.assign(tasks_ + low, tasks_ + high + 1);
    const std::int64_t events_per_period = run_.events - events_at_entry_;
    for (int m = 1; m <= periods; ++m) {
      const int dtask = m * shift;
      const std::uint64_t dtime = std::uint64_t(m) * dt;
      for (const Action& a : s_.actions) {
        const int t = a.task + dtask;
        if (a.start) {
          run_.start_s[std::size_t(t)] = to_s(a.at_ps + dtime);
          run_.resource_busy_s[std::size_t(timing_[t].resource)] += to_s(timing_[t].busy_ps);
        } else {
          const double end = to_s(a.at_ps + dtime);
          run_.end_s[std::size_t(t)] = end;
          run_.makespan_s = std::max(run_.makespan_s, end);
          tasks_[t].completed = 1;
          ++completed_;
          ++run_.replayed_tasks;
        }
      }
    }
    run_.events += events_per_period * periods;
    const int dtask = periods * shift;
    const std::uint64_t dtime = std::uint64_t(periods) * dt;
    for (int t = low; t <= high; ++t) {
      TaskState& moved = tasks_[t + dtask];
      moved = s_.window[std::size_t(t - low)];
      if (moved.next_in_queue != kNone) moved.next_in_queue += dtask;
    }
    for (std::size_t r = 0; r < s_.resources.size(); ++r) {
      ResourceState& rs = resources_[r];
      for (int* t : {&rs.running, &rs.head, &rs.tail})
        if (*t != kNone) *t += dtask;
    }
    for (Timed& e : s_.timed) {  // a uniform shift keeps the heap a heap
      e.at_ps += dtime;
      if (e.id >= 0) e.id += dtask;
    }
    now_ps_ += dtime;
    lowest_open_ += std::size_t(dtask);
    highest_touched_ += dtask;
  }

  const TaskGraph::Timing* timing_;
  Scratch& s_;
  TaskState* tasks_ = nullptr;
  ResourceState* resources_ = nullptr;
  const int* dependant_begin_ = nullptr;
  const int* dependant_list_ = nullptr;
  std::size_t task_count_ = 0, completed_ = 0;
  TimelineRun run_;
  std::uint64_t now_ps_ = 0;
  // Every task below lowest_open_ is complete; none above highest_touched_ has been released
  // or had a dependency complete.
  std::size_t lowest_open_ = 0;
  int highest_touched_ = -1;
  // Periods: the current one, the last period entered (-2: none) with its instant, whether its
  // state was taken and the actions since are being recorded, and the event count there.
  std::size_t period_index_ = 0;
  long long entered_ = -2;
  std::uint64_t entered_at_ps_ = 0;
  bool recorded_ = false, recording_ = false;
  std::int64_t events_at_entry_ = 0;
};

}  // namespace

TimelineRun run_timeline(const TaskGraph& graph) {
  Scheduler scheduler(graph);
  scheduler.run();
  // Dependencies only point backwards (add_task checks), so every task must have run.
  if (!scheduler.all_completed())
    throw std::logic_error(
        fmt::format("timeline: task '{}' never completed", graph.task(int(scheduler.first_incomplete())).name));
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
  for (std::size_t t = 0; t < graph.task_count(); ++t) {
    const TimelineTask& task = graph.task(int(t));
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
