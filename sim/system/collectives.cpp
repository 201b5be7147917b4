#include "sim/system/collectives.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "models/config_error.hpp"
#include "sim/system/routes.hpp"

namespace sim {

LaneResources add_lane_resources(TaskGraph& g, const models::SystemSpec& s) {
  LaneResources lanes;
  lanes.resource_of_lane.reserve(s.lanes.size());
  for (const auto& lane : s.lanes) lanes.resource_of_lane.push_back(g.add_resource({lane, ResourceKind::link, "links"}));
  lanes.devices = int(s.devices.size());
  lanes.link_of_pair.assign(s.devices.size() * s.devices.size(), -1);
  for (std::size_t i = 0; i < s.links.size(); ++i) {  // the first link listed between a pair wins
    const auto& l = s.links[i];
    if (l.from < 0 || l.to < 0 || l.from >= lanes.devices || l.to >= lanes.devices) continue;
    int& slot = lanes.link_of_pair[std::size_t(l.from) * s.devices.size() + std::size_t(l.to)];
    if (slot < 0) slot = int(i);
  }
  return lanes;
}

const models::SystemLink* LaneResources::link(const models::SystemSpec& s, int a, int b) const {
  if (a >= 0 && b >= 0 && a < devices && b < devices) {
    const int i = link_of_pair[std::size_t(a) * std::size_t(devices) + std::size_t(b)];
    if (i >= 0 && std::size_t(i) < s.links.size() && s.links[std::size_t(i)].from == a && s.links[std::size_t(i)].to == b)
      return &s.links[std::size_t(i)];
  }
  return s.link_between(a, b);
}

int add_send(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes, int a, int b, double bytes,
             TaskDeps deps, const std::string& name, const std::string& category) {
  const models::SystemLink* link = lanes.link(s, a, b);
  if (!link)
    throw models::InputError(fmt::format("{}: links: no link from {} to {} for '{}'", s.source_file,
                                         s.devices[std::size_t(a)].name, s.devices[std::size_t(b)].name, name));
  TimelineTask t;
  t.name = name;
  t.category = category;
  t.resource = lanes.resource_of_lane[std::size_t(link->lane)];
  t.busy_s = link->spec.occupancy_s(bytes);
  t.latency_s = link->spec.latency_us * 1e-6;
  t.bytes = bytes;
  return g.add_task(std::move(t), deps);
}

int add_routed_send(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes, int a, int b, double bytes,
                    TaskDeps deps, const std::string& name, const std::string& category) {
  // A direct link is the route (and the common case, thousands of sends per run: no search).
  if (lanes.link(s, a, b)) return add_send(g, s, lanes, a, b, bytes, deps, name, category);
  const std::vector<int> path = route(s, a, b, fmt::format("'{}'", name));
  std::string via;
  if (g.named())
    for (std::size_t i = 1; i + 1 < path.size(); ++i) via += (via.empty() ? "" : ", ") + s.devices[std::size_t(path[i])].name;
  const std::string hop_name = g.named() ? fmt::format("{} (via {})", name, via) : std::string();
  int last = -1;
  for (std::size_t i = 1; i < path.size(); ++i)
    last = add_send(g, s, lanes, path[i - 1], path[i], bytes, i == 1 ? deps : TaskDeps{last}, hop_name, category);
  return last;
}

namespace {

// The lane, busy time and latency of one ring step's send from a to b.
struct StepCostFn {
  virtual ~StepCostFn() = default;
  virtual void cost(int a, int b, double bytes, double& busy_s, double& latency_s) const = 0;
};

// The timeline resource of the link from a to b; InputError naming the send when there is none.
int lane_resource(const models::SystemSpec& s, const LaneResources& lanes, int a, int b, const std::string& name) {
  const models::SystemLink* link = lanes.link(s, a, b);
  if (!link)
    throw models::InputError(fmt::format("{}: links: no link from {} to {} for '{}'", s.source_file,
                                         s.devices[std::size_t(a)].name, s.devices[std::size_t(b)].name, name));
  return lanes.resource_of_lane[std::size_t(link->lane)];
}

// A collective's send on lane resource `resource`, its busy time and latency worked out by the caller.
int add_collective_send(TaskGraph& g, int resource, double bytes, double busy_s, double latency_s, TaskDeps deps,
                        const std::string& name) {
  TimelineTask t;
  t.name = name;
  t.category = "collective";
  t.resource = resource;
  t.busy_s = busy_s;
  t.latency_s = latency_s;
  t.bytes = bytes;
  return g.add_task(std::move(t), deps);
}

// `steps` ring steps among `ranks`; each rank sends bytes / N to its successor per step, at the
// cost `step` gives (else the link's own figures); `first_latency_s` delays the first step's
// arrivals (a call's base latency).
std::vector<int> ring(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                      const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                      const std::string& name, int steps, const char* phase, const StepCostFn* step = nullptr,
                      double first_latency_s = 0) {
  const std::size_t n = ranks.size();
  if (n <= 1) return ready;
  const double chunk = bytes / double(n);
  auto label = [&](int k) { return g.named() ? fmt::format("{} {} step {}", name, phase, k + 1) : std::string(); };
  // Every step sends the same chunk over the same N pairs: each pair's lane, busy time and
  // latency are worked out once per call, not once per step (a TP step makes ~10^4 such sends).
  std::vector<int> resource(n);
  std::vector<double> busy(n), latency(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t to = (i + 1) % n;
    if (!step) {
      const models::SystemLink* link = lanes.link(s, ranks[i], ranks[to]);
      if (!link)
        throw models::InputError(fmt::format("{}: links: no link from {} to {} for '{}'", s.source_file,
                                             s.devices[std::size_t(ranks[i])].name,
                                             s.devices[std::size_t(ranks[to])].name, label(0)));
      resource[i] = lanes.resource_of_lane[std::size_t(link->lane)];
      busy[i] = link->spec.occupancy_s(chunk);
      latency[i] = link->spec.latency_us * 1e-6;
    } else {
      step->cost(ranks[i], ranks[to], chunk, busy[i], latency[i]);
      resource[i] = lane_resource(s, lanes, ranks[i], ranks[to], label(0));
    }
  }
  // received[i]: the task after which rank i holds its latest chunk (initially its own input).
  std::vector<int> received = ready, next(n);
  for (int k = 0; k < steps; ++k) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t to = (i + 1) % n;
      // Rank i forwards what it received last step; the receiver also needs its own input ready.
      const int deps[2] = {received[i], ready[to]};
      const int dep_count = k == 0 && ready[to] != received[i] ? 2 : 1;
      const double flight = step ? latency[i] + (k == 0 ? first_latency_s : 0.0) : latency[i];
      next[to] = add_collective_send(g, resource[i], chunk, busy[i], flight, {deps, deps + dep_count}, label(k));
    }
    received.swap(next);
  }
  return received;
}

struct NcclStepCost : StepCostFn {
  const models::NcclSpec& nccl;
  const models::SystemSpec& s;
  const models::NcclProtocol& p;
  NcclStepCost(const models::NcclSpec& n, const models::SystemSpec& sys, const models::NcclProtocol& proto)
      : nccl(n), s(sys), p(proto) {}
  void cost(int a, int b, double bytes, double& busy_s, double& latency_s) const override {
    const NcclStep st = nccl_step(nccl, s, a, b, p);
    busy_s = bytes / st.bytes_per_s;
    latency_s = st.latency_s;
  }
};

// The zero-time task that ends a rank's share of a push-style all-reduce: on the rank's own
// port after its pushes (FIFO) and every incoming buffer.
int reduce_task(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes, int rank, int next_rank,
                TaskDeps deps, const std::string& name) {
  const models::SystemLink* out = lanes.link(s, rank, next_rank);
  TimelineTask t;
  if (g.named()) t.name = name;
  t.category = "collective";
  t.resource = lanes.resource_of_lane[std::size_t(out->lane)];
  return g.add_task(std::move(t), deps);
}

// Every rank pushes `bytes` to each other rank after its `ready` task; returns per receiver the
// sends it waits for: receiver j's N - 1 sends at [j (N - 1), (j + 1) (N - 1)), by sender.
std::vector<int> push_to_all(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                             const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                             const std::string& name) {
  const std::size_t n = ranks.size();
  std::vector<int> arrived(n * (n - 1));
  const std::string& label = g.named() ? name : std::string();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 1; k < n; ++k) {
      const std::size_t to = (i + k) % n;  // staggered so that no receiver is everyone's first
      // Receiver `to` lists its senders in order (sender i is its (i < to ? i : i - 1)-th).
      arrived[to * (n - 1) + (i < to ? i : i - 1)] =
          add_send(g, s, lanes, ranks[i], ranks[to], bytes, {ready[i]}, label, "collective");
    }
  return arrived;
}

// Rank j's reduce once every push to it has arrived and its own previous step is done.
std::vector<int> reduce_on_arrival(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                   const std::vector<int>& ranks, const std::vector<int>& arrived,
                                   const std::vector<int>& before, const std::string& label) {
  const std::size_t n = ranks.size();
  std::vector<int> done(n), deps(n);
  for (std::size_t j = 0; j < n; ++j) {
    std::copy(arrived.begin() + std::ptrdiff_t(j * (n - 1)), arrived.begin() + std::ptrdiff_t((j + 1) * (n - 1)),
              deps.begin());
    deps[n - 1] = before[j];
    done[j] = reduce_task(g, s, lanes, ranks[j], ranks[(j + 1) % n], deps, label);
  }
  return done;
}

}  // namespace

std::vector<int> add_ring_all_reduce(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                     const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                     const std::string& name) {
  const int steps = 2 * (int(ranks.size()) - 1);
  return ring(g, s, lanes, ranks, bytes, ready, name, steps, "all-reduce");
}

std::vector<int> add_one_shot_all_reduce(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                         const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                         const std::string& name) {
  const std::size_t n = ranks.size();
  if (n <= 1) return ready;
  const auto arrived = push_to_all(g, s, lanes, ranks, bytes, ready, name + " all-reduce push");
  return reduce_on_arrival(g, s, lanes, ranks, arrived, ready, name + " all-reduce reduce");
}

std::vector<int> add_two_stage_all_reduce(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                          const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                          const std::string& name) {
  const std::size_t n = ranks.size();
  if (n <= 1) return ready;
  const double share = bytes / double(n);
  // Reduce-scatter: rank j reduces its share once every peer's share of it has arrived.
  const auto scattered = push_to_all(g, s, lanes, ranks, share, ready, name + " all-reduce scatter");
  const auto reduced = reduce_on_arrival(g, s, lanes, ranks, scattered, ready, name + " all-reduce reduce");
  // All-gather: every rank pushes its reduced share to each peer.
  const auto gathered = push_to_all(g, s, lanes, ranks, share, reduced, name + " all-reduce gather");
  return reduce_on_arrival(g, s, lanes, ranks, gathered, reduced, name + " all-reduce done");
}

std::vector<int> add_nccl_ring(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                               const models::NcclSpec& nccl, int protocol, const std::vector<int>& ranks, double bytes,
                               const std::vector<int>& ready, const std::string& name, bool all_reduce) {
  const models::NcclProtocol& p = nccl.protocols.at(std::size_t(protocol));
  const NcclStepCost cost(nccl, s, p);
  const int n = int(ranks.size());
  return ring(g, s, lanes, ranks, bytes, ready, name, all_reduce ? 2 * (n - 1) : n - 1,
              all_reduce ? "all-reduce" : "all-gather", &cost, p.base_latency_us * 1e-6);
}

namespace {

std::vector<int> run_choice(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                            const CollectiveChoice& c, const std::vector<int>& ranks, double bytes,
                            const std::vector<int>& ready, const std::string& name, bool all_reduce) {
  switch (c.algorithm) {
    case CollectiveAlgorithm::custom_one_stage: return add_one_shot_all_reduce(g, s, lanes, ranks, bytes, ready, name);
    case CollectiveAlgorithm::custom_two_stage: return add_two_stage_all_reduce(g, s, lanes, ranks, bytes, ready, name);
    case CollectiveAlgorithm::nccl_ring:
      return add_nccl_ring(g, s, lanes, *s.devices[std::size_t(ranks.front())].hardware.stack.collectives, c.protocol,
                           ranks, bytes, ready, name, all_reduce);
    case CollectiveAlgorithm::link_ring:
      return all_reduce ? add_ring_all_reduce(g, s, lanes, ranks, bytes, ready, name)
                        : add_ring_all_gather(g, s, lanes, ranks, bytes, ready, name);
  }
  return ready;
}

}  // namespace

std::vector<int> add_collective(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                const CollectiveChoice& c, bool all_reduce, const std::vector<int>& ranks,
                                double bytes, const std::vector<int>& ready, const std::string& name,
                                std::vector<CollectiveCall>* log) {
  if (ranks.size() <= 1) return ready;
  const int first = int(g.task_count());
  std::vector<int> done = run_choice(g, s, lanes, c, ranks, bytes, ready, name, all_reduce);
  if (log) {
    CollectiveCall call;
    call.op = all_reduce ? "all-reduce" : "all-gather";
    call.ranks = ranks;
    call.bytes = bytes;
    call.choice = c;
    call.first_task = first;
    call.end_task = int(g.task_count());
    log->push_back(std::move(call));
  }
  return done;
}

std::vector<int> add_all_reduce(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                const std::string& name, std::vector<CollectiveCall>* log) {
  if (ranks.size() <= 1) return ready;
  return add_collective(g, s, lanes, choose_all_reduce(s, ranks, bytes), true, ranks, bytes, ready, name, log);
}

std::vector<int> add_all_gather(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                const std::string& name, std::vector<CollectiveCall>* log) {
  if (ranks.size() <= 1) return ready;
  return add_collective(g, s, lanes, choose_all_gather(s, ranks, bytes), false, ranks, bytes, ready, name, log);
}

std::vector<int> add_ring_all_gather(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                     const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                     const std::string& name) {
  return ring(g, s, lanes, ranks, bytes, ready, name, int(ranks.size()) - 1, "all-gather");
}

double all_reduce_seconds(const models::SystemSpec& s, const std::vector<int>& ranks, double bytes) {
  TaskGraph g;
  g.set_named(false);
  const LaneResources lanes = add_lane_resources(g, s);
  const int host = g.add_resource({"start", ResourceKind::host, "host"});
  const int start = g.add_task({"start", "host", host, 0, 0, 0, {}});
  const auto done = add_all_reduce(g, s, lanes, ranks, bytes, std::vector<int>(ranks.size(), start), "all-reduce");
  const TimelineRun run = run_timeline(g);
  double end = 0;
  for (int t : done) end = std::max(end, run.end_s[std::size_t(t)]);
  return end;
}

}  // namespace sim
