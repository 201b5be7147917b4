#include "search/trees/path_counts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/config_error.hpp"

namespace search {

PathCounts::PathCounts() { nodes_.push_back(Node{kAbsent, -1, 0, 0, kAbsent, kAbsent}); }

PathCounts PathCounts::from_trace_file(const std::string& path) {
  TraceReader reader(path);
  return from_reader(reader);
}

PathCounts PathCounts::from_reader(TraceReader& reader) {
  PathCounts counts;
  RankPath accepted;
  while (reader.next(accepted)) counts.add(accepted);
  return counts;
}

std::pair<PathCounts, PathCounts> PathCounts::split_trace_file(const std::string& path, double validation_fraction) {
  if (!(validation_fraction > 0 && validation_fraction < 1))
    models::throw_input_error(path, "validation fraction", "a fraction in (0, 1)", fmt::format("{}", validation_fraction));
  std::int64_t total = 0;
  {
    TraceReader reader(path);
    RankPath p;
    while (reader.next(p)) ++total;
  }
  const auto train_lines = std::int64_t(std::llround(double(total) * (1 - validation_fraction)));
  std::pair<PathCounts, PathCounts> split;
  TraceReader reader(path);
  RankPath p;
  for (std::int64_t i = 0; reader.next(p); ++i) (i < train_lines ? split.first : split.second).add(p);
  return split;
}

void PathCounts::add(const RankPath& accepted) {
  ++nodes_[0].count;
  accepted_tokens_ += std::int64_t(accepted.size());
  NodeId node = kRoot;
  for (int r : accepted) {
    NodeId c = nodes_[std::size_t(node)].first_child;
    while (c != kAbsent && nodes_[std::size_t(c)].rank != r) c = nodes_[std::size_t(c)].next_sibling;
    if (c == kAbsent) {
      c = NodeId(nodes_.size());
      Node& p = nodes_[std::size_t(node)];
      const NodeId sibling = p.first_child;
      const int depth = p.depth + 1;
      p.first_child = c;  // `p` is not used after the push_back below (it may reallocate)
      nodes_.push_back(Node{node, r, depth, 0, kAbsent, sibling});
    }
    ++nodes_[std::size_t(c)].count;
    node = c;
  }
}

PathCounts::NodeId PathCounts::child(NodeId parent, int rank) const {
  NodeId c = nodes_[std::size_t(parent)].first_child;
  while (c != kAbsent && nodes_[std::size_t(c)].rank != rank) c = nodes_[std::size_t(c)].next_sibling;
  return c;
}

PathCounts::NodeId PathCounts::find(const RankPath& path) const {
  NodeId node = kRoot;
  for (int r : path) {
    node = child(node, r);
    if (node == kAbsent) return kAbsent;
  }
  return node;
}

std::int64_t PathCounts::count(const RankPath& path) const {
  const NodeId node = find(path);
  return node == kAbsent ? 0 : count(node);
}

RankPath PathCounts::path(NodeId node) const {
  RankPath p(std::size_t(depth(node)));
  for (NodeId v = node; v != kRoot; v = parent(v)) p[std::size_t(depth(v) - 1)] = rank(v);
  return p;
}

std::vector<PathCounts::NodeId> PathCounts::children(NodeId node) const {
  std::vector<NodeId> out;
  for (NodeId c = nodes_[std::size_t(node)].first_child; c != kAbsent; c = nodes_[std::size_t(c)].next_sibling)
    out.push_back(c);
  std::sort(out.begin(), out.end(), [&](NodeId a, NodeId b) { return rank(a) < rank(b); });
  return out;
}

std::vector<std::int32_t> PathCounts::lexicographic_order() const {
  // Pre-order walk with children by rank = lexicographic order of the rank paths.
  std::vector<std::int32_t> order(nodes_.size(), 0);
  std::vector<NodeId> stack{kRoot};
  std::int32_t next = 0;
  while (!stack.empty()) {
    const NodeId v = stack.back();
    stack.pop_back();
    order[std::size_t(v)] = next++;
    auto kids = children(v);
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back(*it);
  }
  return order;
}

}  // namespace search
