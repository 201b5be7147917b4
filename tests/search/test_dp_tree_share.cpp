// The dp_tree_share statistic (search/trees/dp_tree_share_statistic.cpp): a published tree
// searched from an acceptance vector, checked by rebuilding it from the process's own vector.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <algorithm>
#include <string>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "search/acceptance/acceptance_process.hpp"
#include "search/acceptance/acceptance_statistics.hpp"

using namespace search;

namespace {

std::string path_text(const RankPath& p) {
  std::string s;
  for (int r : p) s += (s.empty() ? "" : " ") + std::to_string(r);
  return s;
}

// Each test case has files of its own: ctest runs the cases as parallel processes in one folder.
std::string trees_csv(const std::string& tag) { return "dp_tree_share_" + tag + "_trees.csv"; }
std::string statistics_yaml(const std::string& tag) { return "dp_tree_share_" + tag + ".yaml"; }
void remove_case(const std::string& tag) {
  std::remove(trees_csv(tag).c_str());
  std::remove(statistics_yaml(tag).c_str());
}

// A trees CSV holding `tree` under the name "t", and a statistics file checking it (`rows`, whose
// TREES is replaced by the CSV's name).
std::string write_case(const std::string& tag, const std::vector<RankPath>& tree, std::string rows) {
  std::ofstream(trees_csv(tag)) << "# a test tree\ntree,path\n" << [&] {
    std::string s;
    for (const auto& p : tree) s += "t," + path_text(p) + "\n";
    return s;
  }();
  for (std::size_t at; (at = rows.find("TREES")) != std::string::npos;) rows.replace(at, 5, trees_csv(tag));
  std::ofstream(statistics_yaml(tag)) << "name: t\nfree: [alpha_easy]\nstart: {alpha_easy: 0.6, alpha_hard: 0.6}\n"
                                         "statistics:\n  - {kind: mean_acceptance, value: 0.6}\n"
                                      << rows;
  return statistics_yaml(tag);
}

double predicted(const StatisticsFile& f, std::size_t i, const AcceptanceProcess& p) { return f.spec.statistics[i].predict(p); }

}  // namespace

TEST_CASE("dp_tree_share: a tree searched from a process's own vector is rebuilt whole, another process's is not") {
  // Independent acceptance: the iteration start is the stationary one, so the measured vector is
  // the process's rank probabilities and the search is best_first_nodes' (written independently).
  const AcceptanceProcess truth = AcceptanceProcess::independent(0.55, DraftConfidence::calibrated);
  const std::vector<RankPath> tree = truth.best_first_nodes(63, 6, 32);
  const StatisticsFile f = read_statistics_file(write_case(
      "own", tree, "  - {kind: dp_tree_share, trees_file: TREES, tree: t, measured_width: 32, value: 1, "
            "fitted: false, tolerance: 0.1}\n"));
  REQUIRE(f.spec.statistics.size() == 2);
  CHECK_FALSE(f.spec.statistics[1].fitted);
  CHECK(f.spec.statistics[1].tolerance == 0.1);
  CHECK(predicted(f, 1, truth) == 1.0);
  // A sharper draft builds a deeper, narrower tree: part of this one is not rebuilt.
  const double other = predicted(f, 1, AcceptanceProcess::independent(0.85, DraftConfidence::calibrated));
  CHECK(other < 0.9);
  CHECK(other > 0);
  // A share in steps of one node.
  CHECK(other * 63 == Approx(std::round(other * 63)).margin(1e-9));
  remove_case("own");
}

TEST_CASE("dp_tree_share: paths that tie at the tree's cut count as kept, whichever of them the tree holds") {
  // Under a positional vector "0 0 1", "0 1 0" and "1 0 0" are equally probable: a tree may hold
  // any of them at its cut (Sequoia's program breaks such ties in its own order).
  const AcceptanceProcess truth = AcceptanceProcess::independent(0.55, DraftConfidence::calibrated);
  // The best-first tree of n nodes with its last node (a leaf, its next sibling not taken yet)
  // replaced by a reordering of the same ranks that the rest of the tree can hold.
  std::vector<RankPath> tree;
  bool swapped = false;
  for (int n = 3; n <= 40 && !swapped; ++n) {
    const std::vector<RankPath> best = truth.best_first_nodes(n, 4, 8);
    std::vector<RankPath> rest(best.begin(), best.end() - 1);
    const auto has = [&](const RankPath& p) { return std::find(rest.begin(), rest.end(), p) != rest.end(); };
    RankPath twin = best.back();
    std::sort(twin.begin(), twin.end());
    do {
      if (twin == best.back() || has(twin)) continue;
      RankPath parent(twin.begin(), twin.end() - 1), better = twin;
      if (!parent.empty() && !has(parent)) continue;
      if (better.back() > 0 && (--better.back(), !has(better))) continue;
      tree = rest;
      tree.push_back(twin);
      swapped = true;
      break;
    } while (std::next_permutation(twin.begin(), twin.end()));
  }
  REQUIRE(swapped);
  const StatisticsFile f = read_statistics_file(write_case(
      "ties", tree, "  - {kind: dp_tree_share, trees_file: TREES, tree: t, measured_width: 8, value: 1, fitted: false}\n"));
  CHECK(predicted(f, 1, truth) == 1.0);
  remove_case("ties");
}

TEST_CASE("dp_tree_share: a checked statistic never moves the fit, and decides consistency at its own tolerance") {
  const AcceptanceProcess truth = AcceptanceProcess::independent(0.55, DraftConfidence::calibrated);
  const std::vector<RankPath> tree = truth.best_first_nodes(31, 5, 16);
  const std::string row = "  - {kind: dp_tree_share, trees_file: TREES, tree: t, measured_width: 16, "
                          "value: 1, fitted: false, tolerance: TOL}\n";
  auto with_tolerance = [&](const std::string& tol) {
    std::string r = row;
    r.replace(r.find("TOL"), 3, tol);
    return read_statistics_file(write_case("checked", tree, r));
  };
  // The fitted statistic alone sets alpha_easy = 0.6 (mean acceptance 0.6, constant confidence).
  const StatisticsFitReport loose = fit_statistics(with_tolerance("0.5"));
  REQUIRE(loose.fits.size() == 1);
  CHECK(loose.fits[0].process.params().alpha_easy == Approx(0.6).margin(1e-6));
  CHECK(loose.fits[0].max_abs_residual < 1e-6);  // over the fitted statistics only
  const double share = loose.fits[0].predicted[1];
  CHECK(share < 1.0);
  // The same fit fails a tolerance that the tree's share misses.
  const double tight = (1.0 - share) / 2;
  CHECK_THROWS_WITH(fit_statistics(with_tolerance(std::to_string(tight))),
                    Catch::Contains("no fit reproduces every statistic within its tolerance") &&
                        Catch::Contains("the checked statistic 'dp_tree_share") && Catch::Contains("missed by 1 of 1 fits"));
  remove_case("checked");
}

TEST_CASE("dp_tree_share: over an open grid every fit is the same with its checked statistics as without them") {
  // A fitted statistic that depends on the open parameters and leaves the fit a direction to move
  // along (two free parameters, one statistic), so that each grid point's fit depends on where
  // the previous one ended; and a checked tree (a bushy draft's) that part of the grid misses.
  const AcceptanceProcess truth = AcceptanceProcess::independent(0.55, DraftConfidence::calibrated);
  write_case("grid", truth.best_first_nodes(31, 5, 16), "");
  const std::string head = "name: t\nfree: [alpha_easy, easy_share]\nstart: {alpha_easy: 0.9, alpha_hard: 0.05, "
                           "easy_share: 0.9, confidence: calibrated}\nopen: {persistence: [0.0, 0.5, 0.9], "
                           "lower_rank_share: [1.0, 0.1]}\nstatistics:\n  - {kind: top_k_hit, k: 2, value: 0.6}\n";
  std::ofstream(statistics_yaml("grid")) << head;
  const StatisticsFitReport without = fit_statistics(read_statistics_file(statistics_yaml("grid")));
  std::ofstream(statistics_yaml("grid")) << head << "  - {kind: dp_tree_share, trees_file: " << trees_csv("grid")
                                         << ", tree: t, measured_width: 16, value: 1, fitted: false, tolerance: 0.1}\n";
  const StatisticsFitReport with = fit_statistics(read_statistics_file(statistics_yaml("grid")));
  REQUIRE(with.fits.size() == 6);
  REQUIRE(without.fits.size() == 6);
  int missed = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    INFO("grid point " << i << ": tree share " << with.fits[i].predicted[1]);
    CHECK(with.fits[i].process.params() == without.fits[i].process.params());
    missed += with.consistent[i] ? 0 : 1;
  }
  CHECK(missed > 0);  // the check decided membership, and moved no fit
  CHECK(missed < 6);
  // The fits differ from point to point: the continuation had something to carry.
  CHECK_FALSE(with.fits[0].process.params() == with.fits[2].process.params());
  remove_case("grid");
}

TEST_CASE("dp_tree_share: a missing tree, a tree Sequoia's search cannot make and a narrow measurement are one-line errors") {
  const std::string row = "  - {kind: dp_tree_share, trees_file: TREES, tree: NAME, measured_width: W, "
                          "value: 1, fitted: false}\n";
  auto file = [&](const std::vector<RankPath>& tree, const std::string& name, const std::string& width) {
    std::string r = row;
    r.replace(r.find("NAME"), 4, name);
    r.replace(r.find(" W,"), 3, " " + width + ",");
    return write_case("errors", tree, r);
  };
  CHECK_THROWS_WITH(read_statistics_file(file({{0}, {1}}, "u", "8")),
                    Catch::Contains("statistics[1].tree: expected a tree of") && Catch::Contains("(t)") &&
                        Catch::Contains("got 'u'"));
  // A node without its parent, or without its better-ranked sibling.
  CHECK_THROWS_WITH(read_statistics_file(file({{0}, {1, 0}}, "t", "8")),
                    Catch::Contains("every node's parent is in it"));
  CHECK_THROWS_WITH(read_statistics_file(file({{0}, {2}}, "t", "8")),
                    Catch::Contains("better-ranked siblings"));
  CHECK_THROWS_WITH(read_statistics_file(file({{0}, {1}, {2}}, "t", "2")),
                    Catch::Contains("statistics[1].measured_width: expected at least the tree's widest rank + 1 (3)"));
  // A trees file that is not there names the key and both paths.
  std::string missing = row;
  missing.replace(missing.find("NAME"), 4, "t");
  missing.replace(missing.find(" W,"), 3, " 8,");
  missing.replace(missing.find("TREES"), 5, "no-such-trees.csv");
  std::ofstream(statistics_yaml("errors")) << "name: t\nfree: [alpha_easy]\nstatistics:\n"
                                              "  - {kind: mean_acceptance, value: 0.6}\n" << missing;
  CHECK_THROWS_WITH(read_statistics_file(statistics_yaml("errors")),
                    Catch::Contains("statistics[1].trees_file: expected a CSV of published trees") &&
                        Catch::Contains("'no-such-trees.csv'"));
  // Every statistic checked only: nothing to fit.
  std::ofstream(statistics_yaml("errors")) << "name: t\nfree: [alpha_easy]\nstatistics:\n"
                                              "  - {kind: mean_acceptance, value: 0.6, fitted: false}\n";
  CHECK_THROWS_WITH(fit_statistics(read_statistics_file(statistics_yaml("errors"))), Catch::Contains("nothing to fit"));
  std::ofstream(statistics_yaml("errors")) << "name: t\nfree: [alpha_easy]\nstatistics:\n"
                                              "  - {kind: mean_acceptance, value: 0.6, tolerance: 1.5}\n";
  CHECK_THROWS_WITH(read_statistics_file(statistics_yaml("errors")),
                    Catch::Contains("statistics[0].tolerance: expected a tolerance below 1"));
  remove_case("errors");
}

TEST_CASE("Shipped DuoDecoding band rebuilds Sequoia's greedy CNN and OpenWebText trees, the geometric tail does not") {
  const std::string dir = models::ConfigRegistry::default_config_dir();
  const StatisticsFile file = read_statistics_file(dir + "/acceptance/statistics/paper003-table4.yaml");
  const ProcessBand band = resolve_process_band("duodecoding-paper003", dir);
  int trees = 0;
  for (const auto& s : file.spec.statistics) {
    if (s.fitted) continue;
    ++trees;
    for (const auto& m : band.members) CHECK(s.predict(AcceptanceProcess(m.params)) >= 1.0 - s.tolerance);
  }
  CHECK(trees == 4);
  // The same fits with the geometric tail (lower_rank_share 1) miss every tree by more than the
  // tolerance: the trees are what fixes the draft's lower candidates.
  for (const auto& m : band.members) {
    AcceptanceProcessParams geometric = m.params;
    geometric.lower_rank_share = 1.0;
    for (const auto& s : file.spec.statistics)
      if (!s.fitted) CHECK(s.predict(AcceptanceProcess(geometric)) < 1.0 - s.tolerance);
  }
}
