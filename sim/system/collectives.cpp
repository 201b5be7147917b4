#include "sim/system/collectives.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"
#include "sim/system/routes.hpp"

namespace sim {

LaneResources add_lane_resources(TaskGraph& g, const models::SystemSpec& s) {
  LaneResources lanes;
  lanes.resource_of_lane.reserve(s.lanes.size());
  for (const auto& lane : s.lanes) lanes.resource_of_lane.push_back(g.add_resource({lane, ResourceKind::link, "links"}));
  return lanes;
}

int add_send(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes, int a, int b, double bytes,
             std::vector<int> deps, const std::string& name, const std::string& category) {
  const models::SystemLink* link = s.link_between(a, b);
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
  t.deps = std::move(deps);
  return g.add_task(std::move(t));
}

int add_routed_send(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes, int a, int b, double bytes,
                    std::vector<int> deps, const std::string& name, const std::string& category) {
  // A direct link is the route (and the common case, thousands of sends per run: no search).
  if (s.link_between(a, b)) return add_send(g, s, lanes, a, b, bytes, std::move(deps), name, category);
  const std::vector<int> path = route(s, a, b, fmt::format("'{}'", name));
  std::string via;
  if (g.named())
    for (std::size_t i = 1; i + 1 < path.size(); ++i) via += (via.empty() ? "" : ", ") + s.devices[std::size_t(path[i])].name;
  const std::string hop_name = g.named() ? fmt::format("{} (via {})", name, via) : std::string();
  int last = -1;
  for (std::size_t i = 1; i < path.size(); ++i)
    last = add_send(g, s, lanes, path[i - 1], path[i], bytes, i == 1 ? std::move(deps) : std::vector<int>{last},
                    hop_name, category);
  return last;
}

namespace {

std::vector<int> ring(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                      const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                      const std::string& name, int steps, const char* phase) {
  const std::size_t n = ranks.size();
  if (n <= 1) return ready;
  const double chunk = bytes / double(n);
  // received[i]: the task after which rank i holds its latest chunk (initially its own input).
  std::vector<int> received = ready;
  for (int step = 0; step < steps; ++step) {
    std::vector<int> next(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t to = (i + 1) % n;
      // Rank i forwards what it received last step; the receiver also needs its own input ready.
      std::vector<int> deps = {received[i]};
      if (step == 0 && ready[to] != received[i]) deps.push_back(ready[to]);
      next[to] = add_send(g, s, lanes, ranks[i], ranks[to], chunk, deps,
                          g.named() ? fmt::format("{} {} step {}", name, phase, step + 1) : std::string(),
                          "collective");
    }
    received = next;
  }
  return received;
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
  std::vector<std::vector<int>> arrived(n);  // per receiver: the sends it waits for
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 1; k < n; ++k) {
      const std::size_t to = (i + k) % n;  // staggered so that no receiver is everyone's first
      arrived[to].push_back(add_send(g, s, lanes, ranks[i], ranks[to], bytes, {ready[i]},
                                     g.named() ? name + " all-reduce push" : std::string(), "collective"));
    }
  // The local reduction ends the kernel: a zero-time task on the rank's own port after its own
  // pushes (FIFO) and every incoming buffer.
  std::vector<int> done(n);
  for (std::size_t j = 0; j < n; ++j) {
    const models::SystemLink* out = s.link_between(ranks[j], ranks[(j + 1) % n]);
    TimelineTask t;
    if (g.named()) t.name = name + " all-reduce reduce";
    t.category = "collective";
    t.resource = lanes.resource_of_lane[std::size_t(out->lane)];
    t.deps = arrived[j];
    t.deps.push_back(ready[j]);
    done[j] = g.add_task(std::move(t));
  }
  return done;
}

std::vector<int> add_all_reduce(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                const std::string& name) {
  const std::size_t n = ranks.size();
  if (n <= 1) return ready;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j && !s.link_between(ranks[i], ranks[j]))
        return add_ring_all_reduce(g, s, lanes, ranks, bytes, ready, name);
  // Estimates on the first pair's link: ring 2 (N - 1) dependent steps of B / N; one-shot N - 1
  // pushes of B serialised on a rank's port, then one flight.
  const models::LinkSpec& link = s.link_between(ranks[0], ranks[1])->spec;
  const double ring_s = 2.0 * double(n - 1) * link.transfer_s(bytes / double(n));
  const double one_shot_s = double(n - 1) * link.occupancy_s(bytes) + link.latency_us * 1e-6;
  return one_shot_s < ring_s ? add_one_shot_all_reduce(g, s, lanes, ranks, bytes, ready, name)
                             : add_ring_all_reduce(g, s, lanes, ranks, bytes, ready, name);
}

std::vector<int> add_ring_all_gather(TaskGraph& g, const models::SystemSpec& s, const LaneResources& lanes,
                                     const std::vector<int>& ranks, double bytes, const std::vector<int>& ready,
                                     const std::string& name) {
  return ring(g, s, lanes, ranks, bytes, ready, name, int(ranks.size()) - 1, "all-gather");
}

}  // namespace sim
