// Typed scenario parameters (search/scenarios/scenario.hpp): every declaration validates its
// values before a scenario runs, so no value wraps, no list grows without bound and no typo
// passes silently.
#include <catch2/catch.hpp>

#include "models/config_error.hpp"
#include "search/scenarios/scenario.hpp"

using namespace search;

TEST_CASE("scenario params: integers in range, never wrapped") {
  const auto p = param::integer("k", 16, 1, 1024, "candidates", "k");
  CHECK(param_problem(p, "16").empty());
  CHECK(param_problem(p, " 1024 ").empty());
  CHECK_THAT(param_problem(p, "4294967297"), Catch::Contains("[1, 1024]") && Catch::Contains("'4294967297'"));
  CHECK_FALSE(param_problem(p, "0").empty());
  CHECK_FALSE(param_problem(p, "1.5").empty());
  CHECK_FALSE(param_problem(p, "99999999999999999999999").empty());  // past long long: refused, not clamped
  CHECK_FALSE(param_problem(p, "").empty());
  CHECK_THROWS_WITH(validate_param("demo", p, "2000"), Catch::Contains("scenario demo: --param k: expected an integer"));
}

TEST_CASE("scenario params: reals refuse NaN and infinities, optional ones may stay unset") {
  const auto a = param::real("alpha", 0.7, 1e-6, 1 - 1e-6, "", "acceptance");
  CHECK(param_problem(a, "0.5").empty());
  for (const char* bad : {"nan", "inf", "-inf", "1", "0", "1e300", "x"}) CHECK_FALSE(param_problem(a, bad).empty());
  const auto o = param::optional_real("hit-rate", 0, 1, "", "fixed hit rate");
  CHECK(param_problem(o, "").empty());
  CHECK_FALSE(param_problem(o, "1.5").empty());
}

TEST_CASE("scenario params: lists expand ranges, stay bounded, come back sorted and unique") {
  const auto w = param::integers("w", "64", 1, 4096, "nodes", "widths");
  CHECK(param_problem(w, "1,2,8-16").empty());
  CHECK(validate_param("demo", w, "4, 1 ,2") == "4,1,2");
  CHECK_FALSE(param_problem(w, "1-100000000").empty());  // within bounds per value, but 10^8 values
  CHECK_FALSE(param_problem(w, "16-8").empty());
  CHECK_FALSE(param_problem(w, "1,,2").empty());
  ScenarioContext ctx;
  ctx.scenario = "demo";
  ctx.declared = {w};
  ctx.params = {{"w", "16,4,4,8-9"}};
  CHECK(ctx.integers("w") == std::vector<long long>{4, 8, 9, 16});
}

TEST_CASE("scenario params: choices and booleans name what they accept, with the closest choice") {
  const auto e = param::choice("engine", "roofline", {"roofline", "sim", "sim-clocked"}, "engine");
  CHECK(param_problem(e, "sim").empty());
  CHECK_THAT(param_problem(e, "simm"), Catch::Contains("one of roofline, sim, sim-clocked") &&
                                           Catch::Contains("did you mean 'sim'"));
  const auto b = param::boolean("baselines", true, "baselines");
  CHECK(b.default_value == "true");
  CHECK_FALSE(param_problem(b, "yes").empty());
}

TEST_CASE("scenario params: every registered scenario's defaults pass its own declarations") {
  for (const auto& s : scenarios()) {
    INFO(s.name);
    CHECK_NOTHROW(scenario_params(s, {}));
    for (const auto& p : s.params) CHECK_FALSE(p.help.empty());
  }
  // A misspelt key names the closest declared one.
  CHECK_THROWS_WITH(scenario_params(scenario("chain-sd"), {"gama=3"}), Catch::Contains("did you mean 'gamma'"));
}
