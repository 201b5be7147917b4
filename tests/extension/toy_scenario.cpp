// A scenario added the way docs/extending.md says, in this one file and nowhere else: autoregressive
// decoding of the workload's target on --hw's device, one token per step, through the deployment's
// engine (so under the device's stack, on either engine), and the `plan` scheme that weighs it.
// The test binary `specdse_toy` is the product's main.cpp linked with this file; the test
// tests/experiments/test_extension_recipe.cpp finds the scenario in its generated command,
// `specdse scenario`, `list`, a sweep and `plan`, and checks its numbers against `latency` and
// plan's own plain row. Nothing in the product names it.
#include <fmt/format.h>

#include "search/plan/plan_scheme.hpp"
#include "models/latency_engine.hpp"
#include "search/scenarios/scenario.hpp"
#include "search/scenarios/typed_scenario.hpp"

namespace toy {
namespace {

// The scenario's typed seam (search/scenarios/typed_scenario.hpp): its parameters and rows as
// structs; a scenario that C++ callers use from elsewhere declares these in a header of its own.
struct Params {
  long long tokens = 0;
};
struct Row {
  std::string hw, model;
  long long context = 0, batch = 0;
  double t_token_s = 0, tokens_per_s = 0, generation_s = 0;
};

search::TypedResult<Row> run_toy_ar(const search::ScenarioContext& ctx, const Params& p) {
  ctx.require(ctx.engine != nullptr, "--hw");
  ctx.require(ctx.workload != nullptr, "--model");
  ctx.require(!ctx.contexts.empty(), "--context");
  search::TypedResult<Row> r;
  for (long long L : ctx.contexts) {
    const double t = ctx.engine->step(models::verify_graph(*ctx.engine, *ctx.workload, 1, L)).seconds;
    r.rows.push_back({ctx.hw->name, ctx.workload->target.name, L, ctx.workload->batch, t, 1 / t, double(p.tokens) * t});
  }
  r.table.footer = "toy-ar: one target pass per token";
  return r;
}

const search::TypedScenario<Params, Row>& toy_ar() {
  static const search::TypedScenario<Params, Row> typed(
      {"toy-ar",
       "Toy: autoregressive decoding on one device (the extension recipe's test)",
       {},
       nullptr,
       "toy-ar",
       {"hw", "stack", "model", "context", "batch", "engine"},
       {"hw", "model", "context"},
       ""},
      search::ParamBindings<Params>().add(
          search::param::integer("tokens", 128, 1, 1e6, "tokens", "tokens generated per request"), &Params::tokens),
      search::ColumnBindings<Row>()
          .add("hw", &Row::hw)
          .add("model", &Row::model)
          .add("context", &Row::context)
          .add("batch", &Row::batch)
          .add("t_token_s", &Row::t_token_s)
          .add("tokens_per_s", &Row::tokens_per_s)
          .add("generation_s", &Row::generation_s),
      run_toy_ar);
  return typed;
}
// Registers the scenario when the program starts.
const auto& toy_ar_registration = toy_ar();

// The plan scheme over it: the toy scenario on the target's device when the target runs whole on one.
std::vector<search::PlanCandidate> run_toy_scheme(const search::PlanSetup& s) {
  constexpr const char* kScheme = "toy AR";
  if (!s.target_on_one_device())
    return {search::untimed(kScheme, "", "not applicable: the toy runs the target on one device")};
  const auto& dev = s.system.devices[std::size_t(s.target_device())];
  search::ScenarioInputs in = s.inputs();
  in.system_spec = nullptr;
  in.hw_spec = &dev.hardware;
  const Params p = toy_ar().defaults();
  std::vector<search::PlanCandidate> out;
  const auto r = search::run_candidate_scenario(s, toy_ar(), in, p, kScheme, "target on " + dev.name, out);
  if (!r) return out;
  search::PlanCandidate c(kScheme, "target on " + dev.name);
  c.tbt_s = c.tbt_low_s = c.tbt_high_s = r->rows.at(0).t_token_s;
  c.parameters = "one token per step";
  c.acceptance = "none (no speculation)";
  c.reproduce = search::reproduce_command(
      s, "toy-ar " + s.hw_args(s.target_device()) + search::scenario_flags("toy-ar", toy_ar().settings(p)));
  out.push_back(c);
  return out;
}

const search::PlanSchemeRegistration toy_scheme_registration{
    {"toy AR", "toy: the toy-ar scenario on the target's device", 90, run_toy_scheme}};

}  // namespace
}  // namespace toy
