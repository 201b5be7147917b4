#include "models/system_route.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>

#include "models/config_error.hpp"

namespace models {

namespace {

// Breadth-first search from a over the directed links, visiting neighbours in device order, so
// the first path found to b is the shortest with the lowest device indices. Empty when none.
std::vector<int> shortest_path(const SystemSpec& s, int a, int b) {
  const int n = int(s.devices.size());
  if (a < 0 || b < 0 || a >= n || b >= n) return {};
  if (a == b) return {a};
  std::vector<std::vector<int>> next(std::size_t(n), std::vector<int>{});
  for (const auto& l : s.links) next[std::size_t(l.from)].push_back(l.to);
  for (auto& v : next) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  std::vector<int> parent(std::size_t(n), -1);
  parent[std::size_t(a)] = a;
  std::deque<int> queue{a};
  while (!queue.empty()) {
    const int d = queue.front();
    queue.pop_front();
    for (int e : next[std::size_t(d)]) {
      if (parent[std::size_t(e)] >= 0) continue;
      parent[std::size_t(e)] = d;
      if (e == b) {
        std::vector<int> path{b};
        for (int v = b; v != a; v = parent[std::size_t(v)]) path.push_back(parent[std::size_t(v)]);
        std::reverse(path.begin(), path.end());
        return path;
      }
      queue.push_back(e);
    }
  }
  return {};
}

}  // namespace

std::vector<int> route(const SystemSpec& s, int a, int b, const std::string& what) {
  auto path = shortest_path(s, a, b);
  if (path.empty()) {
    auto name = [&](int d) {
      return d >= 0 && d < int(s.devices.size()) ? s.devices[std::size_t(d)].name : fmt::format("#{}", d);
    };
    throw InputError(fmt::format("{}: links: no path of links from {} to {} for {}",
                                         s.source_file.empty() ? s.name : s.source_file, name(a), name(b), what));
  }
  return path;
}

bool has_route(const SystemSpec& s, int a, int b) { return !shortest_path(s, a, b).empty(); }

}  // namespace models
