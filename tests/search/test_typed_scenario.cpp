// The typed seam (search/scenarios/typed_scenario.hpp): a scenario's Params and Row structs are
// generated from its one declaration, so a typed call and a command line with the settings it
// prints run the same code on the same values, and the typed rows are the table's rows.
#include <catch2/catch.hpp>

#include <variant>

#include "models/config_registry.hpp"
#include "search/scenarios/chain_sd/chain_sd_scenario.hpp"
#include "search/scenarios/duodecoding/duodecoding_scenario.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher_scenario.hpp"
#include "search/scenarios/specpipe/specpipe_entry.hpp"
#include "search/scenarios/tree_sd/tree_sd_scenario.hpp"

using namespace search;

namespace {

// The scenario's context for `settings`, as the runner builds it (declarations, validated values).
ScenarioContext context_of(const std::string& name, const std::vector<std::string>& settings) {
  ScenarioContext ctx;
  ctx.scenario = name;
  ctx.declared = scenario(name).params;
  ctx.params = scenario_params(scenario(name), settings);
  return ctx;
}

}  // namespace

TEST_CASE("typed scenarios: the registered declarations are the bindings', defaults print no settings") {
  CHECK(chain_sd::scenario().settings(chain_sd::scenario().defaults()).empty());
  CHECK(tree_sd::scenario().settings(tree_sd::scenario().defaults()).empty());
  CHECK(eagle_dispatcher::scenario().settings(eagle_dispatcher::scenario().defaults()).empty());
  CHECK(duodecoding::scenario().settings(duodecoding::scenario().defaults()).empty());
  CHECK(specpipe::entry::scenario().settings(specpipe::entry::scenario().defaults()).empty());
  // Defaults come from the declarations (not a second copy in the struct).
  CHECK(chain_sd::scenario().defaults().gamma == std::vector<long long>{1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(chain_sd::scenario().defaults().engine == "roofline");
  CHECK_FALSE(chain_sd::scenario().defaults().alpha.has_value());
  CHECK(tree_sd::scenario().defaults().x_max == 128);
  CHECK(specpipe::entry::scenario().defaults().boundary);
  CHECK(specpipe::entry::scenario().columns().front() == "method");
  CHECK(scenario("specpipe").params.size() == 20);  // the bindings' declarations, registered
}

TEST_CASE("typed scenarios: settings round-trip through the declarations' validation") {
  chain_sd::Params p = chain_sd::scenario().defaults();
  p.system = "specpipe-8x3090-pcie";
  p.draft = "llama-3.2-1b@q5_k_m";
  p.gamma = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 22, 23};
  p.alpha = 0.123456789012345;
  const auto settings = chain_sd::scenario().settings(p);
  CHECK(std::find(settings.begin(), settings.end(), "gamma=1-16,20,22,23") != settings.end());
  // Read back as a scenario reads a user's --param values: every member as it was.
  ScenarioContext ctx = context_of("chain-sd", settings);
  CHECK(ctx.text("system") == p.system);
  CHECK(ctx.text("draft") == p.draft);
  CHECK(ctx.integers("gamma") == p.gamma);
  CHECK(ctx.real("alpha") == *p.alpha);  // shortest round-trip text: the same double

  duodecoding::Params d = duodecoding::scenario().defaults();
  d.boundary = false;
  d.prompt = 4096;
  const auto ds = duodecoding::scenario().settings(d);
  CHECK(ds == std::vector<std::string>{"prompt=4096", "boundary=false"});
}

TEST_CASE("typed scenarios: a typed run's rows are its table's rows, status typed") {
  const models::ConfigRegistry reg;
  ScenarioInputs in;
  in.model = "llama-2-7b";
  in.contexts = {256};
  chain_sd::Params p = chain_sd::scenario().defaults();
  p.system = "duodecoding-a800-xeon";
  p.draft = "llama-68m";
  p.gamma = {1, 2, 3, 4};
  p.alpha = 0.7;
  const auto typed = chain_sd::scenario().run(in, p, reg);
  REQUIRE(typed.rows.size() == 4);
  REQUIRE(typed.table.rows.size() == 4);
  // The same settings through the untyped entry (the command line's) give the same table.
  in.params = chain_sd::scenario().settings(p);
  const auto untyped = run_scenario("chain-sd", in, reg);
  CHECK(untyped.columns == typed.table.columns);
  CHECK(untyped.rows == typed.table.rows);
  CHECK(untyped.footer == typed.table.footer);
  int best = 0;
  for (std::size_t i = 0; i < typed.rows.size(); ++i) {
    const auto& row = typed.rows[i];
    CHECK(row.status.is_ok());
    REQUIRE(row.tokens_per_s.has_value());
    CHECK(std::get<double>(typed.table.rows[i][11]) == *row.tokens_per_s);
    best += row.best;
  }
  CHECK(best == 1);

  // A design that does not fit is a typed infeasible row with the numbers, not a time.
  chain_sd::Params big = p;
  in.model = "llama-3.1-70b";
  in.params.clear();
  big.draft = "llama-3.1-8b-instruct";
  const auto r = chain_sd::scenario().run(in, big, reg);
  REQUIRE_FALSE(r.rows.empty());
  CHECK(r.rows.front().status.kind == RowStatus::Kind::infeasible);
  CHECK_THAT(r.rows.front().status.text(), Catch::StartsWith("infeasible: needs"));
  CHECK_FALSE(r.rows.front().tokens_per_s.has_value());
  CHECK_FALSE(r.rows.front().best);
}

TEST_CASE("typed scenarios: row status words") {
  CHECK(RowStatus::ok().text() == "ok");
  CHECK(RowStatus::unchecked().text() == "unchecked");
  CHECK(RowStatus::unchecked().timed());
  CHECK_FALSE(RowStatus::unchecked().is_ok());
  CHECK(RowStatus::infeasible("infeasible: needs 1 GiB of 0.5 GiB").text() == "infeasible: needs 1 GiB of 0.5 GiB");
  CHECK_FALSE(RowStatus::infeasible("x").timed());
  CHECK(RowStatus::not_applicable("one device only").text() == "not applicable: one device only");
}
