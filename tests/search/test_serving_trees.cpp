// EAGLE token trees in the serving simulator (search/scenarios/serving/eagle_tree_recovery.hpp):
// the renewal's expectation, its calibration on paper 000's measured chain and tree AAT, and a
// tree's steps in the simulation (a tree that never recovers is the chain of its depth).
#include <catch2/catch.hpp>

#include <numeric>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/scenarios/serving/eagle_tree_recovery.hpp"
#include "search/scenarios/serving/serving_simulation.hpp"

using namespace search::serving;

namespace {

const std::vector<double> kSurvival = {0.8, 0.6, 0.45, 0.3, 0.2, 0.1};

ServingWorkload mixed_workload() {
  ServingWorkload w;
  w.name = "mixed";
  w.quantiles = {0, 1};
  w.prompt_tokens = {200, 200};
  w.output_tokens = {300, 300};
  YieldChain c;
  c.first = {0.3, 0.2, 0.2, 0.1, 0.1, 0.1};
  c.marginal = c.first;
  c.transitions.assign(6, c.first);
  c.transitions[0] = {0.6, 0.2, 0.1, 0.05, 0.03, 0.02};  // a hard stretch persists
  c.mean_yield = 2.8;
  w.acceptance["eagle3"] = c;
  return w;
}

ServingStepCosts flat_costs() {
  ServingStepCosts s;
  s.prefill_s = [](int requests, long long tokens) { return 1e-3 + 1e-7 * double(requests * tokens); };
  s.decode_s = [](int batch, int tokens, long long, int draft) { return 5e-3 + 1e-5 * batch * tokens + 1e-4 * draft; };
  return s;
}

}  // namespace

TEST_CASE("serving trees: the renewal keeps a chain's tokens without recovery, depth + 1 with certain recovery") {
  for (int depth : {0, 1, 3, 6, 9}) {
    INFO("depth " << depth);
    double chain = 1;
    for (int j = 1; j <= depth; ++j) chain += j <= int(kSurvival.size()) ? kSurvival[std::size_t(j - 1)] : 0.0;
    CHECK(renewal_tree_kept(kSurvival, depth, 0) == Approx(chain));
    CHECK(renewal_tree_kept(kSurvival, depth, 1) == Approx(depth + 1));
    double previous = 0;
    for (double r : {0.0, 0.2, 0.5, 0.8, 1.0}) {
      const double kept = renewal_tree_kept(kSurvival, depth, r);
      CHECK(kept >= previous - 1e-12);
      previous = kept;
      if (depth > 0 && r > 0 && r < 1) CHECK(solve_tree_recovery(kSurvival, depth, kept) == Approx(r).margin(1e-9));
    }
  }
  // Outside what the depth allows: the interval's ends.
  CHECK(solve_tree_recovery(kSurvival, 3, 0.5) == 0);
  CHECK(solve_tree_recovery(kSurvival, 3, 9) == 1);
}

TEST_CASE("serving trees: calibrated on paper 000's EAGLE-3 tables, a tree recovers more as it grows") {
  const models::ConfigRegistry reg;
  const auto data = search::AcceptanceData::load(reg.dir() + "/acceptance/aat_measurements.csv");
  const auto tree = reg.algorithm("eagle3-tree");
  auto at = [&](int nodes) {
    return calibrate_tree_recovery(data, tree, "eagle3-chain", "llama-3.1-8b-instruct", "govreport", nodes);
  };
  // One node is a chain of one: nothing to recover.
  CHECK(at(1).step.depth == 1);
  CHECK(at(1).step.recovery < 0.02);
  // EAGLE's depth 4 (five levels) from 5 nodes up to 24 (configs/algorithms/eagle3-tree.yaml).
  CHECK(at(10).step.depth == 5);
  CHECK(at(10).contexts.size() >= 4);
  CHECK(at(10).recovery_low <= at(10).step.recovery);
  CHECK(at(10).step.recovery <= at(10).recovery_high);
  // More nodes hold more of the target's tokens where the chain misses.
  double previous = 0;
  for (int nodes : {2, 5, 10, 20, 40, 80}) {
    INFO(nodes << " nodes");
    const double r = at(nodes).step.recovery;
    CHECK(r >= previous - 0.02);
    previous = r;
  }
  CHECK(at(80).step.recovery > 0.3);
  // A size between measured ones takes the nearest measured one below it.
  CHECK(at(21).measured_nodes == 20);
  // Errors: a chain's table is not a tree's; a target never measured; a tree larger than the table.
  CHECK_THROWS_AS(calibrate_tree_recovery(data, reg.algorithm("eagle3-chain"), "eagle3-chain", "llama-3.1-8b-instruct",
                                          "govreport", 4),
                  models::InputError);
  CHECK_THROWS_WITH(calibrate_tree_recovery(data, tree, "eagle3-chain", "llama-3.1-70b", "govreport", 4),
                    Catch::Contains("aat_measurements.csv") && Catch::Contains("llama-3.1-70b"));
  CHECK_THROWS_WITH(at(500), Catch::Contains("500 draft nodes"));
}

TEST_CASE("serving trees: a tree that never recovers runs as the chain of its depth, one that does keeps more") {
  const auto w = mixed_workload();
  ServingConfig c;
  c.rate_per_s = 2;
  c.duration_s = 30;
  c.kv_capacity_tokens = 1 << 22;
  c.method = "eagle3";
  c.k = 4;
  const ServingRun chain = simulate_serving(w, c, flat_costs());
  ServingConfig as_tree = c;
  for (int k = 0; k <= c.k; ++k) as_tree.tree_by_k.push_back(TreeStep{k, 0.0});
  const ServingRun same = simulate_serving(w, as_tree, flat_costs());
  CHECK(same.end_s == chain.end_s);
  CHECK(same.mean_tokens_per_step == chain.mean_tokens_per_step);
  // Recovering half the misses within the same depth: more tokens a step, never past depth + 1.
  ServingConfig recovering = as_tree;
  for (auto& t : recovering.tree_by_k) t.recovery = 0.5;
  const ServingRun tree = simulate_serving(w, recovering, flat_costs());
  CHECK(tree.mean_tokens_per_step > chain.mean_tokens_per_step + 0.2);
  CHECK(tree.mean_tokens_per_step <= c.k + 1);
  for (const auto& r : tree.requests) CHECK(r.finished());
  // A table of the wrong length is a programming error.
  ServingConfig wrong = c;
  wrong.tree_by_k = {TreeStep{}};
  CHECK_THROWS_AS(simulate_serving(w, wrong, flat_costs()), std::logic_error);
}
