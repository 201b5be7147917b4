// Statistic kind dp_tree_share: how much of a published token tree the process's own rank
// vector would rebuild with the search that produced the tree.
//
// Sequoia (github.com/Infini-AI-Lab/Sequoia, tree_search.py) builds its trees with a dynamic
// program over a measured acceptance vector p, p[k] the share of verification steps whose
// accepted token was the draft's k-th candidate (tests/test_accept.py: depth-1 trees of W
// children, the target's greedy token). The program's value is the sum over nodes of the product
// of p along the node's rank path, so its optimum is the `nodes` most probable rank paths within
// the depth limit: the published tree is a statistic of p even though p is not published.
//
// The prediction repeats the measurement and the search on the process: p is the process's rank
// distribution at the iteration starts that standard speculative decoding with depth-1 trees of
// `measured_width` children settles into (after a rejection the state leans hard, as in Sequoia's
// measuring run), and the tree is the best-first top of the rank paths under p with the published
// tree's size and depth. The statistic is the share of the published tree's nodes in that tree,
// ties at its cut counted as kept (paths with the same ranks in another order are equally
// probable, and the published trees split such ties by the program's own order): 1 when the
// process's p ranks paths as the measured one did. It moves in steps of one node, so
// a statistics file lists it with `fitted: false` (a check on every fit, not a residual to
// minimise) and a tolerance of its own. It lives with the trees because it builds one
// (search/acceptance/ never includes search/trees/).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "models/config_error.hpp"
#include "models/input_file.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "search/acceptance/trace.hpp"
#include "search/trees/positional_trees.hpp"
#include "search/trees/token_tree.hpp"
#include "sim/io/csv.hpp"

namespace search {
namespace dp_tree_share {

// Every fit of an open grid evaluates the statistic once (and a fitted one at every step): the
// search is over at most this many nodes, and the measured trees at most this many children wide
// (Sequoia's widest measurement for this pair is 32).
constexpr std::size_t kMaxTreeNodes = 1024;
constexpr int kMaxMeasuredWidth = 256;

struct PublishedTree {
  std::vector<RankPath> nodes;  // draft nodes, the root implicit
  int depth = 0;
};

// The rows of `tree` in a CSV with columns tree, path (rank paths "0 1"); others are ignored.
PublishedTree load_tree(const models::YamlReader& row, const std::string& path, const std::string& name) {
  std::ifstream in = models::open_input_file(path, "published trees");
  sim::CsvReadOptions options;
  options.trim = true;
  sim::CsvReader reader(in, path, options);
  std::vector<std::string> header;
  std::size_t tree_col = 0, path_col = 0;
  std::set<std::string> names;
  PublishedTree t;
  std::set<RankPath> seen;
  for (sim::CsvRecord record; reader.next(record);) {
    if (header.empty()) {
      header = record.cells;
      auto col = [&](const char* need) {
        const auto it = std::find(header.begin(), header.end(), need);
        if (it == header.end())
          throw models::InputError(fmt::format("{}: header: missing column '{}' (expected tree,...,path)", path, need));
        return std::size_t(it - header.begin());
      };
      tree_col = col("tree");
      path_col = col("path");
      continue;
    }
    if (record.cells.size() != header.size())
      throw models::InputError(
          fmt::format("{}:{}: {} cells, the header has {}", path, record.line, record.cells.size(), header.size()));
    names.insert(record.cells[tree_col]);
    if (record.cells[tree_col] != name) continue;
    RankPath p = parse_rank_path(record.cells[path_col], path, record.line);
    if (p.empty()) throw models::InputError(fmt::format("{}:{}: path: empty (the root is implicit)", path, record.line));
    if (*std::max_element(p.begin(), p.end()) >= kMaxMeasuredWidth)
      throw models::InputError(fmt::format("{}:{}: path: expected ranks 0..{}, got '{}'", path, record.line,
                                           kMaxMeasuredWidth - 1, record.cells[path_col]));
    if (!seen.insert(p).second)
      throw models::InputError(fmt::format("{}:{}: path '{}' twice in tree '{}'", path, record.line, record.cells[path_col], name));
    t.depth = std::max(t.depth, int(p.size()));
    t.nodes.push_back(std::move(p));
  }
  if (t.nodes.empty())
    row.fail("tree", fmt::format("a tree of {} ({})", path, fmt::join(names, ", ")), "'" + name + "'");
  if (t.nodes.size() + 1 > kMaxTreeNodes)
    row.fail("tree", fmt::format("a tree of at most {} nodes", kMaxTreeNodes), fmt::format("{} nodes", t.nodes.size() + 1));
  // Sequoia's trees hold a node's parent and its better-ranked siblings (the program gives a node
  // the candidates 0 .. b - 1): anything else is not one of its trees.
  if (!is_prefix_closed(t.nodes))
    row.fail("tree", "a tree whose every node's parent is in it", fmt::format("'{}' in {}", name, path));
  for (const auto& p : t.nodes) {
    RankPath sibling = p;
    if (sibling.back() > 0 && (--sibling.back(), !seen.count(sibling)))
      row.fail("tree", "a tree whose nodes hold their better-ranked siblings", fmt::format("'{}' in {}", name, path));
  }
  return t;
}

// The draft's rank distribution at Sequoia's measuring iteration starts: depth-1 trees of `width`.
std::vector<double> measured_rank_vector(const AcceptanceProcess& process, int width) {
  std::vector<RankPath> depth_one;
  for (int r = 0; r < width; ++r) depth_one.push_back({r});
  const StateDistribution start = process.stationary_start(depth_one);
  std::vector<double> p(std::size_t(width), 0.0);
  for (int r = 0; r < width; ++r)
    for (int s = 0; s < 2; ++s) p[std::size_t(r)] += start[std::size_t(s)] * process.rank_probability(s, 1, r);
  return p;
}

// The probability of a rank path under the positional vector p, its ranks multiplied in sorted
// order so that paths with the same ranks in another order (which tie exactly) get the same bits.
double path_probability(const std::vector<double>& p, RankPath path) {
  std::sort(path.begin(), path.end());
  double prob = 1;
  for (int r : path) prob *= p[std::size_t(r)];
  return prob;
}

// The share of the published tree's nodes among the most probable rank paths of its size and
// depth. Paths that tie (the same ranks in another order) are all among them when one is: which of
// them Sequoia's program keeps at the cut is its own tie-break, so a node counts when its
// probability reaches the kept threshold (to 1e-9, rounding).
double share_rebuilt(const AcceptanceProcess& process, const PublishedTree& tree, int width) {
  const std::vector<double> p = measured_rank_vector(process, width);
  for (std::size_t r = 1; r < p.size(); ++r)
    if (p[r] > p[r - 1] * (1 + 1e-12))
      throw models::InputError(fmt::format(
          "{}: dp_tree_share needs a rank vector that does not increase with rank (Sequoia's tree search keeps "
          "ranks 0..b-1 below a node); rank {} has {:.6g} against {:.6g} at rank {}",
          process.source(), r, p[r], p[r - 1], r - 1));
  // The smallest probability Sequoia's program keeps at the tree's size (its search is
  // most_probable_paths' under the positional vector).
  const auto score = [&](const RankPath& path) { return path_probability(p, path); };
  const double threshold =
      score(most_probable_paths(score, int(tree.nodes.size()), tree.depth, int(p.size())).back()) * (1 - 1e-9);
  std::size_t kept = 0;
  for (const auto& node : tree.nodes) kept += score(node) >= threshold ? 1 : 0;
  return double(kept) / double(tree.nodes.size());
}

const StatisticKindRegistration dp_tree_share_kind(
    "dp_tree_share", {"trees_file", "tree", "measured_width"},
    "share of a published tree's nodes (trees_file: CSV tree,path, relative to the statistics file) that the "
    "process's rank vector, measured on depth-1 trees of measured_width children, rebuilds with Sequoia's "
    "tree search (the most probable rank paths of the tree's size and depth)",
    [](const models::YamlReader& row) {
      std::filesystem::path file = row.string("trees_file");
      if (file.is_relative()) file = std::filesystem::path(row.file()).parent_path() / file;
      std::error_code ec;
      if (!std::filesystem::is_regular_file(file, ec))
        row.fail("trees_file", "a CSV of published trees (relative to the statistics file)",
                 fmt::format("'{}' ({})", row.string("trees_file"), file.string()));
      const int width = row.int_in("measured_width", 2, kMaxMeasuredWidth);
      const PublishedTree tree = load_tree(row, file.string(), row.string("tree"));
      int widest = 0;
      for (const auto& n : tree.nodes) widest = std::max(widest, *std::max_element(n.begin(), n.end()) + 1);
      if (widest > width)
        row.fail("measured_width", fmt::format("at least the tree's widest rank + 1 ({})", widest), fmt::format("{}", width));
      statistic_value_in(row, 0, 1, "a share of the tree's nodes: 0 to 1");
      return std::function<double(const AcceptanceProcess&)>(
          [tree, width](const AcceptanceProcess& process) { return share_rebuilt(process, tree, width); });
    });

}  // namespace dp_tree_share
}  // namespace search
