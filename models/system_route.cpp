#include "models/system_route.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <limits>

#include "models/config_error.hpp"

namespace models {

namespace {

// Breadth-first search from a over the directed links, visiting neighbours in device order, so
// the first path found to b is the shortest with the lowest device indices. Empty when none.
std::vector<int> shortest_path(const SystemSpec& s, int a, int b) {
  const int n = int(s.devices.size());
  if (a < 0 || b < 0 || a >= n || b >= n) return {};
  if (a == b) return {a};
  // A device's neighbours in device order. The loader's link_index, ordered by (from, to), holds
  // them already: a search then touches only the devices it visits (a switch of N devices has
  // N^2 links, and building the whole adjacency per route made loading and costing O(N^3)).
  // A system built without the index (or with links added past it) gets the adjacency built here.
  const bool indexed = s.link_index.size() == s.links.size();
  std::vector<std::vector<int>> built;
  if (!indexed) {
    built.assign(std::size_t(n), std::vector<int>{});
    for (const auto& l : s.links) built[std::size_t(l.from)].push_back(l.to);
    for (auto& v : built) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    }
  }
  auto for_each_neighbour = [&](int d, auto&& visit) {
    if (!indexed) {
      for (int e : built[std::size_t(d)])
        if (visit(e)) return true;
      return false;
    }
    for (auto it = s.link_index.lower_bound({d, std::numeric_limits<int>::min()});
         it != s.link_index.end() && it->first.first == d; ++it)
      if (visit(it->first.second)) return true;
    return false;
  };
  std::vector<int> parent(std::size_t(n), -1);
  parent[std::size_t(a)] = a;
  std::deque<int> queue{a};
  while (!queue.empty()) {
    const int d = queue.front();
    queue.pop_front();
    const bool found = for_each_neighbour(d, [&](int e) {
      if (parent[std::size_t(e)] >= 0) return false;
      parent[std::size_t(e)] = d;
      if (e == b) return true;
      queue.push_back(e);
      return false;
    });
    if (found) {
      std::vector<int> path{b};
      for (int v = b; v != a; v = parent[std::size_t(v)]) path.push_back(parent[std::size_t(v)]);
      std::reverse(path.begin(), path.end());
      return path;
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
