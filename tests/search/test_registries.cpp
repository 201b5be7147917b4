// Tree methods, window policies and scenarios register themselves (one file each): the
// registries list them in their output order, and an unknown name is an InputError naming the
// available ones.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "models/config_error.hpp"
#include "search/acceptance/chain_trace.hpp"
#include "search/scenarios/scenario.hpp"
#include "search/trees/tree_method.hpp"
#include "search/window/policy_registry.hpp"

using namespace search;

TEST_CASE("tree methods: registered in tree-search's order, sequoia-dp needs an acceptance model") {
  std::vector<std::string> names;
  for (const auto& m : tree_methods()) names.push_back(m.name);
  CHECK(names == std::vector<std::string>{"prior-score", "width-first", "depth-first", "sequoia-dp"});
  CHECK_THROWS_WITH(tree_method("greedy"), Catch::Contains("'greedy'") &&
                                               Catch::Contains("prior-score, width-first, depth-first, sequoia-dp"));
  CHECK_THROWS_AS(tree_method("greedy"), models::InputError);

  PathCounts train;
  for (const RankPath& p : {RankPath{0, 0}, RankPath{0}, RankPath{1}, RankPath{}}) train.add(p);
  const auto shape = TokenTree::from_widths({2, 2}, "test");
  TreeMethodInput in{train, shape, nullptr, 6};
  CHECK_FALSE(tree_method("sequoia-dp").build(in));
  const auto width_first = tree_method("width-first").build(in);
  REQUIRE(width_first);
  CHECK(width_first->size() == 4);  // the 4-node shape is full at x = 5
  const std::vector<double> p = {0.6, 0.2};
  in.acceptance = &p;
  const auto dp = tree_method("sequoia-dp").build(in);
  REQUIRE(dp);
  CHECK(dp->size() == 5);  // x = 2..6
  const auto prior = tree_method("prior-score").build(in);
  REQUIRE(prior);
  // x = 2: one draft node, rank 0 at depth 1, accepted in 2 of the 4 lines ({0,0} and {0})
  CHECK(tree_aat(prior->front(), train) == Approx(1.5));
}

TEST_CASE("window policies: families in output order, an unknown family names the available ones") {
  CHECK(window_policy_names() == std::vector<std::string>{"static", "online", "fsm", "cache-fsm", "q-learning"});
  PolicyOptions o;
  o.gamma_max = 3;
  const auto lat = ChainLatency::constant(0.1, 1.0, 3);
  const auto plain = parse_chain_trace("0 0\n0\n", "t");
  const WindowPolicyInput in{o, lat, plain};
  CHECK(make_window_policies("static", in).size() == 3);
  CHECK(make_window_policies("cache-fsm", in).empty());  // no cache flags in the trace
  CHECK(make_window_policies("q-learning", in).size() == o.q_rewards.size());
  CHECK_THROWS_WITH(make_window_policies("pid", in),
                    Catch::Contains("'pid'") && Catch::Contains("static, online, fsm, cache-fsm, q-learning"));
  const auto rs = replay_all_policies(plain, lat, o, {"fsm", "static"});
  REQUIRE(rs.size() == 4);
  CHECK(rs.front().policy == "fsm");
  CHECK(rs.back().policy == "static-3");
}

TEST_CASE("scenarios: tree-sd is registered, unknown names and parameters name the available ones") {
  std::vector<std::string> names;
  for (const auto& s : scenarios()) names.push_back(s.name);
  CHECK(std::find(names.begin(), names.end(), "tree-sd") != names.end());
  CHECK_THROWS_WITH(scenario("specpipe-x"), Catch::Contains("'specpipe-x'") && Catch::Contains("tree-sd"));
  CHECK_THROWS_AS(scenario("specpipe-x"), models::InputError);

  const auto tree_sd = scenario("tree-sd");
  const auto params = scenario_params(tree_sd, {"x-max=16"});
  CHECK(params.at("x-max") == "16");
  CHECK(params.at("measured-only") == "false");
  CHECK_THROWS_WITH(scenario_params(tree_sd, {"depth=3"}), Catch::Contains("x-max, measured-only"));
  // Missing inputs are named, not crashed on.
  ScenarioContext ctx;
  ctx.scenario = "tree-sd";
  ctx.declared = tree_sd.params;  // as the runner makes it
  ctx.params = params;
  CHECK_THROWS_WITH(tree_sd.run(ctx), Catch::Contains("scenario tree-sd: expected --hw"));
  ctx.params["x-max"] = "lots";
  CHECK_THROWS_WITH(ctx.integer("x-max"), Catch::Contains("--param x-max: expected an integer"));
}
