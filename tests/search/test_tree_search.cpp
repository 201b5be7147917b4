// Token trees and the tree-construction methods of paper 000 (§III-C, §IV-E), the Sequoia DP
// and the hardware-aware choice.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "roofline/analytic_engine.hpp"
#include "search/trees/hardware_aware_tree.hpp"
#include "search/trees/path_counts.hpp"
#include "search/trees/sequoia_dp.hpp"
#include "search/trees/token_tree.hpp"
#include "search/acceptance/trace_generator.hpp"
#include "search/trees/tree_search.hpp"

using search::RankPath;
using search::TokenTree;

namespace {

// A rank profile like measured tree SD: the best child dominates, a long tail of ranks.
search::PositionalModel tree_profile(double decay = 1.0) {
  search::PositionalModel m;
  m.acceptance = {0.55, 0.12, 0.06, 0.035, 0.02, 0.012, 0.008, 0.005};
  m.depth_decay = decay;
  return m;
}

search::PathCounts generate_counts(const search::PositionalModel& m, std::uint64_t seed, int lines) {
  search::TraceGenerator gen(m, seed, lines);
  search::PathCounts counts;
  RankPath p;
  for (int i = 0; i < lines; ++i) {
    gen.next(p);
    counts.add(p);
  }
  return counts;
}

std::string config_dir() {
  const char* dir = std::getenv("SPECDSE_CONFIG_DIR");
  return dir ? dir : SPECDSE_CONFIG_DIR;
}

}  // namespace

TEST_CASE("token tree: rank paths in and out, prefix closure enforced") {
  const auto t = TokenTree::from_rank_paths({{1}, {0, 0}, {0}, {0, 1}, {0, 0, 3}});
  CHECK(t.verification_length() == 6);
  CHECK(t.draft_nodes() == 5);
  CHECK(t.depth() == 3);
  CHECK(t.widths_per_depth() == std::vector<int>{2, 2, 1});
  CHECK(t.contains({0, 0, 3}));
  CHECK_FALSE(t.contains({0, 0, 2}));
  const auto paths = t.rank_paths();
  CHECK(search::is_prefix_closed(paths));
  CHECK(TokenTree::from_rank_paths(paths).rank_paths() == paths);
  CHECK(t.longest_prefix({0, 0, 3, 1}) == 3);
  CHECK(t.longest_prefix({0, 2}) == 1);
  CHECK(t.longest_prefix({}) == 0);
  CHECK_THROWS_AS(TokenTree::from_rank_paths({{0}, {1, 0}}), models::InputError);  // parent missing
  CHECK_THROWS_AS(TokenTree::from_rank_paths({{0}, {0}}), models::InputError);     // repeated
  CHECK_FALSE(search::is_prefix_closed({{0}, {1, 0}}));
}

TEST_CASE("token tree: width notation round trip and the paper's maximal tree") {
  CHECK(TokenTree::parse_widths("4 4 3 1") == std::vector<int>{4, 4, 3, 1});
  CHECK(TokenTree::parse_widths("1 0") == std::vector<int>{1});
  CHECK_THROWS_AS(TokenTree::parse_widths("4 x"), models::InputError);
  CHECK_THROWS_AS(TokenTree::parse_widths("4 0 2"), models::InputError);
  for (const auto& w : std::vector<std::vector<int>>{{1}, {4, 4, 3, 1}, {4, 16, 16, 16, 16}, {2, 7, 3}, {3, 1, 5}}) {
    const auto t = TokenTree::from_widths(w);
    CHECK(t.widths_per_depth() == w);
    CHECK(search::is_prefix_closed(t.rank_paths()));
  }
  // 4 16 16: four children of the root, four under each, one rank-0 child under each of those.
  const auto t = TokenTree::from_widths({4, 16, 16});
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      CHECK(t.contains({a, b}));
      CHECK(t.contains({a, b, 0}));
      CHECK_FALSE(t.contains({a, b, 1}));
    }
}

TEST_CASE("token tree: attention mask is ancestor-or-self") {
  const auto t = TokenTree::from_widths({3, 4, 2});
  const auto mask = t.attention_mask();
  const int x = t.verification_length();
  REQUIRE(int(mask.size()) == x);
  for (int i = 0; i < x; ++i) {
    const RankPath pi = t.path(TokenTree::Vertex(i));
    for (int j = 0; j < x; ++j) {
      const RankPath pj = t.path(TokenTree::Vertex(j));
      const bool ancestor_or_self = pj.size() <= pi.size() && std::equal(pj.begin(), pj.end(), pi.begin());
      CHECK(bool(mask[i][j]) == ancestor_or_self);
    }
    CHECK(mask[i][0] == 1);  // every token sees the root
    int row = 0;
    for (auto v : mask[i]) row += v;
    CHECK(row == int(pi.size()) + 1);
  }
}

TEST_CASE("width-first and depth-first reproduce the baseline shapes of tree_methods.csv") {
  std::ifstream in(config_dir() + "/acceptance/tree_methods.csv");
  REQUIRE(in);
  const auto shape = TokenTree::from_widths({4, 16, 16, 16, 16, 16});
  const auto width_first = search::width_first_ranking(shape);
  const auto depth_first = search::depth_first_ranking(shape);
  REQUIRE(width_first.size() == 84);
  REQUIRE(depth_first.size() == 84);
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("method,", 0) == 0) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
    REQUIRE(f.size() == 5);
    const int nodes = std::stoi(f[2]);
    const auto expected = TokenTree::parse_widths(f[3]);
    INFO(line);
    if (f[0] == "width-first") {
      CHECK(width_first.tree(nodes).widths_per_depth() == expected);
      ++checked;
    } else if (f[0] == "depth-first") {
      CHECK(depth_first.tree(nodes).widths_per_depth() == expected);
      ++checked;
    }
  }
  CHECK(checked >= 40);
  // Every prefix of both baselines is a tree.
  for (int n = 0; n <= 84; ++n) {
    CHECK(search::is_prefix_closed({width_first.paths.begin(), width_first.paths.begin() + n}));
    CHECK(search::is_prefix_closed({depth_first.paths.begin(), depth_first.paths.begin() + n}));
  }
}

TEST_CASE("prior-score: every prefix of the ranking is a prefix-closed tree") {
  // Heavy ties: a tiny trace where parents and children have equal counts.
  search::PathCounts tiny;
  for (const RankPath& p : std::vector<RankPath>{{0, 0, 0}, {1, 2}, {3}, {}, {0, 1}, {2, 0, 0, 0}}) tiny.add(p);
  const auto counts = generate_counts(tree_profile(0.9), 11, 20000);
  for (const search::PathCounts* c : std::vector<const search::PathCounts*>{&tiny, &counts})
    for (int bound : {0, 1, 2, 3}) {
      // 40 nodes: more than the tiny trace has, so the ranking is padded with unseen nodes.
      const auto r = search::prior_score_ranking(*c, 40, bound);
      REQUIRE(r.size() == 40);
      CHECK(std::set<RankPath>(r.paths.begin(), r.paths.end()).size() == 40);
      for (int n = 0; n <= 40; ++n) {
        const std::vector<RankPath> prefix(r.paths.begin(), r.paths.begin() + n);
        CHECK(search::is_prefix_closed(prefix));
        if (bound > 0)
          for (const auto& p : prefix) CHECK(int(p.size()) <= bound);
      }
      // Scores never increase along the ranking.
      for (int n = 1; n < 40; ++n) CHECK(c->count(r.paths[n - 1]) >= c->count(r.paths[n]));
      // Sorting once and filtering per depth bound gives the same ranking.
      CHECK(search::PriorScoreOrder(*c).ranking(40, bound).paths == r.paths);
    }
}

TEST_CASE("prior-score equals exhaustive search over all trees on small instances") {
  search::PositionalModel m;
  m.acceptance = {0.5, 0.25, 0.15};
  const auto counts = generate_counts(m, 3, 3000);
  // Universe: every rank path of depth <= 3 with ranks < 3 (39 nodes), parents listed first.
  std::vector<RankPath> universe;
  for (int d = 1; d <= 3; ++d) {
    std::vector<RankPath> level;
    if (d == 1) level = {{0}, {1}, {2}};
    else
      for (const auto& p : universe)
        if (int(p.size()) == d - 1)
          for (int r = 0; r < 3; ++r) {
            auto q = p;
            q.push_back(r);
            level.push_back(q);
          }
    universe.insert(universe.end(), level.begin(), level.end());
  }
  std::vector<std::int64_t> score;
  std::vector<int> parent_index;
  for (const auto& p : universe) {
    score.push_back(counts.count(p));
    int parent = -1;
    for (std::size_t j = 0; j < universe.size(); ++j)
      if (p.size() > 1 && universe[j] == RankPath(p.begin(), p.end() - 1)) parent = int(j);
    parent_index.push_back(parent);
  }
  const int max_n = 5;
  std::vector<std::int64_t> best(max_n + 1, -1);
  std::vector<char> chosen(universe.size(), 0);
  // Enumerate every prefix-closed subset of up to max_n nodes (each once: in index order).
  std::function<void(std::size_t, int, std::int64_t)> grow = [&](std::size_t from, int n, std::int64_t sum) {
    best[std::size_t(n)] = std::max(best[std::size_t(n)], sum);
    if (n == max_n) return;
    for (std::size_t i = from; i < universe.size(); ++i) {
      if (parent_index[i] >= 0 && !chosen[std::size_t(parent_index[i])]) continue;
      chosen[i] = 1;
      grow(i + 1, n + 1, sum + score[i]);
      chosen[i] = 0;
    }
  };
  grow(0, 0, 0);
  const auto ranking = search::prior_score_ranking(counts, max_n);
  const auto aat = search::nested_aat(ranking, counts);
  for (int n = 1; n <= max_n; ++n) {
    const double exhaustive = 1 + double(best[std::size_t(n)]) / double(counts.lines());
    CHECK(aat[std::size_t(n)] == Approx(exhaustive).epsilon(1e-12));
    CHECK(search::tree_aat(ranking.tree(n), counts) == Approx(exhaustive).epsilon(1e-12));
  }
}

TEST_CASE("prior-score beats width-first and depth-first at every x on a realistic rank profile") {
  const auto m = tree_profile(0.95);
  const auto train = generate_counts(m, 21, 60000);
  const auto validation = generate_counts(m, 22, 60000);
  const auto shape = TokenTree::from_widths({4, 16, 16, 16, 16, 16});
  const auto prior = search::prior_score_ranking(train, 84);
  const auto p_train = search::nested_aat(prior, train);
  const auto p_val = search::nested_aat(prior, validation);
  double gain_width = 0, gain_depth = 0;
  for (const auto& baseline : {search::width_first_ranking(shape), search::depth_first_ranking(shape)}) {
    const auto b_train = search::nested_aat(baseline, train);
    const auto b_val = search::nested_aat(baseline, validation);
    for (int n = 1; n <= 84; ++n) {
      INFO(baseline.method << " x = " << n + 1);
      CHECK(p_train[std::size_t(n)] >= b_train[std::size_t(n)]);         // in sample: always
      CHECK(p_val[std::size_t(n)] >= b_val[std::size_t(n)] - 0.005);     // out of sample: up to noise
      (baseline.method == "width-first" ? gain_width : gain_depth) += (p_val[std::size_t(n)] - b_val[std::size_t(n)]) / 84;
    }
  }
  // As in the paper, the width-first baseline trails by more than the depth-first one.
  CHECK(gain_width > gain_depth);
  CHECK(gain_depth > 0.05);
}

TEST_CASE("Sequoia DP: optimal trees under the positional model") {
  const std::vector<double> p = {0.5, 0.2, 0.1, 0.05};
  search::SequoiaDp dp(p, 30);
  search::PositionalModel m;
  m.acceptance = p;
  m.max_depth = 1000;
  // With p sorted, the best n-node tree is the n most probable paths (a greedy over the
  // infinite tree); the DP must match it, and its tree must be worth what it says.
  std::vector<double> all;
  std::function<void(RankPath, double, int)> walk = [&](RankPath path, double prob, int depth) {
    if (depth > 0) all.push_back(prob);
    if (depth == 8) return;
    for (std::size_t k = 0; k < p.size(); ++k) {
      auto q = path;
      q.push_back(int(k));
      if (prob * p[k] > 1e-4) walk(q, prob * p[k], depth + 1);
    }
  };
  walk({}, 1.0, 0);
  std::sort(all.rbegin(), all.rend());
  double greedy = 1;
  CHECK(dp.expected_aat(0) == 1.0);
  for (int n = 1; n <= 30; ++n) {
    greedy += all[std::size_t(n - 1)];
    CHECK(dp.expected_aat(n) == Approx(greedy).epsilon(1e-9));
    const auto t = dp.tree(n);
    CHECK(t.draft_nodes() == n);
    double worth = 1;
    for (const auto& path : t.rank_paths()) worth += m.path_probability(path);
    CHECK(worth == Approx(dp.expected_aat(n)).epsilon(1e-9));
  }
  CHECK_THROWS_AS(search::SequoiaDp({}, 4), models::InputError);
}

TEST_CASE("prior-score trees reach 98 % of the Sequoia DP expected AAT out of sample (x <= 64)") {
  const auto m = tree_profile();
  const auto train = generate_counts(m, 101, 100000);
  const auto validation = generate_counts(m, 202, 100000);
  const auto ranking = search::prior_score_ranking(train, 63);
  const auto val = search::nested_aat(ranking, validation);
  search::SequoiaDp dp(m.acceptance, 63);
  for (int x = 2; x <= 64; ++x) {
    INFO("x = " << x << ": validation " << val[std::size_t(x - 1)] << ", DP " << dp.expected_aat(x - 1));
    CHECK(val[std::size_t(x - 1)] >= 0.98 * dp.expected_aat(x - 1));
  }
}

TEST_CASE("hardware-aware tree choice is never worse than the paper's x-only choice") {
  const models::ConfigRegistry reg(config_dir());
  const auto hw = reg.hardware("u280");
  const auto engine = roofline::make_analytic_engine(hw);
  models::Workload w;
  w.target = reg.model("llama-3.1-8b-instruct");
  w.algorithm = std::make_shared<models::AlgorithmSpec>(reg.algorithm("longspec-tree"));
  search::TreeLatency latency(*engine, w, 1024);
  const auto train = generate_counts(tree_profile(0.95), 5, 20000);
  const auto r = search::hardware_aware_tree_search(train, train, latency, 48);
  REQUIRE(r.x_only.size() == 47);
  REQUIRE(r.per_x_best.size() == 47);
  CHECK(r.best.p_eff() >= r.best_x_only.p_eff());
  CHECK(r.gain() >= 0);
  for (std::size_t i = 0; i < r.x_only.size(); ++i) {
    CHECK(r.per_x_best[i].p_eff() >= r.x_only[i].p_eff());
    CHECK(r.x_only[i].t_verify_s > 0);
    CHECK(r.x_only[i].t_draft_s > 0);
    CHECK(r.per_x_best[i].depth <= (r.per_x_best[i].depth_bound ? r.per_x_best[i].depth_bound : 1000));
  }
  // T_d of a tree = the draft passes of its levels, as models::t_draft_passes computes it.
  const auto& c = r.x_only[10];
  CHECK(c.t_draft_s == Approx(models::t_draft_passes(*engine, w, TokenTree::parse_widths(c.shape), 1024)));
  CHECK(c.t_verify_s == Approx(models::t_verify(*engine, w, c.x, 1024)));
}
