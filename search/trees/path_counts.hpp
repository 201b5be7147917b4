#pragma once
// A trace folded into a trie of rank paths: for every node, how many iterations accepted it
// (i.e. whose accepted path has it as a prefix). This is the paper's prior score of the node
// (paper 000 §III-C: +1 each time the node's token is accepted), and it is all that AAT needs:
// for a prefix-closed tree T, the longest prefix of a line inside T has exactly as many tokens
// as the line has prefixes in T, so
//     AAT(T) = 1 + (sum over non-root nodes v of T of count(v)) / lines.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "search/acceptance/trace.hpp"

namespace search {

class PathCounts {
 public:
  using NodeId = std::int32_t;
  static constexpr NodeId kRoot = 0;
  static constexpr NodeId kAbsent = -1;

  PathCounts();
  // Folds a whole trace file (streamed) / the rest of a reader.
  static PathCounts from_trace_file(const std::string& path);
  static PathCounts from_reader(TraceReader& reader);

  // A train / validation split of one trace file: the first (1 - validation_fraction) of its
  // iterations train, the rest validate (a split in time, so a drifting trace is validated
  // on its future). Streams the file twice. validation_fraction in (0, 1).
  static std::pair<PathCounts, PathCounts> split_trace_file(const std::string& path, double validation_fraction);

  void add(const RankPath& accepted);  // one iteration

  std::int64_t lines() const { return nodes_[0].count; }
  std::int64_t accepted_tokens() const { return accepted_tokens_; }
  double mean_accepted_length() const { return lines() ? double(accepted_tokens_) / double(lines()) : 0; }
  std::size_t node_count() const { return nodes_.size(); }  // including the root

  NodeId child(NodeId parent, int rank) const;
  NodeId find(const RankPath& path) const;  // kAbsent when no iteration reached it
  std::int64_t count(NodeId node) const { return nodes_[std::size_t(node)].count; }
  std::int64_t count(const RankPath& path) const;
  NodeId parent(NodeId node) const { return nodes_[std::size_t(node)].parent; }
  int rank(NodeId node) const { return nodes_[std::size_t(node)].rank; }
  int depth(NodeId node) const { return nodes_[std::size_t(node)].depth; }
  RankPath path(NodeId node) const;
  // Children of a node in increasing rank order.
  std::vector<NodeId> children(NodeId node) const;
  // Every node's position in the lexicographic order of rank paths (root 0), for tie-breaks.
  std::vector<std::int32_t> lexicographic_order() const;

 private:
  struct Node {
    NodeId parent;
    int rank;
    int depth;
    std::int64_t count;
    NodeId first_child;
    NodeId next_sibling;
  };
  std::vector<Node> nodes_;
  std::int64_t accepted_tokens_ = 0;
};

}  // namespace search
