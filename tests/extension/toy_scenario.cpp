// A scenario added the way docs/extending.md says, in this one file and nowhere else: autoregressive
// decoding of the workload's target on --hw's device, one token per step, through the deployment's
// engine (so under the device's stack, on either engine), and the `plan` scheme that weighs it.
// The test binary `specdse_toy` is the product's main.cpp linked with this file; the test
// tests/experiments/test_extension_recipe.cpp finds the scenario in its generated command,
// `specdse scenario`, `list`, a sweep and `plan`, and checks its numbers against `latency` and
// plan's own plain row. Nothing in the product names it.
#include <fmt/format.h>

#include "experiments/plan/plan_scheme.hpp"
#include "models/latency_engine.hpp"
#include "search/scenarios/scenario.hpp"

namespace toy {
namespace {

search::ScenarioResult run_toy_ar(const search::ScenarioContext& ctx) {
  ctx.require(ctx.engine != nullptr, "--hw");
  ctx.require(ctx.workload != nullptr, "--model");
  ctx.require(!ctx.contexts.empty(), "--context");
  const long long tokens = ctx.integer("tokens");
  search::ScenarioResult r;
  r.columns = {"hw", "model", "context", "batch", "t_token_s", "tokens_per_s", "generation_s"};
  for (long long L : ctx.contexts) {
    const double t = ctx.engine->step(models::verify_graph(*ctx.engine, *ctx.workload, 1, L)).seconds;
    r.rows.push_back({ctx.hw->name, ctx.workload->target.name, std::int64_t(L), std::int64_t(ctx.workload->batch), t,
                      1 / t, double(tokens) * t});
  }
  r.footer = "toy-ar: one target pass per token";
  return r;
}

const search::ScenarioRegistration toy_ar_registration(
    {"toy-ar",
     "Toy: autoregressive decoding on one device (the extension recipe's test)",
     {search::param::integer("tokens", 128, 1, 1e6, "tokens", "tokens generated per request")},
     run_toy_ar,
     "toy-ar",
     {"hw", "stack", "model", "context", "batch", "engine"},
     {"hw", "model", "context"},
     ""});

// The plan scheme over it: the toy scenario on the target's device when the target runs whole on one.
std::vector<experiments::PlanCandidate> run_toy_scheme(const experiments::PlanSetup& s) {
  constexpr const char* kScheme = "toy AR";
  if (!s.target_on_one_device())
    return {experiments::untimed(kScheme, "", "not applicable: the toy runs the target on one device")};
  const auto& dev = s.system.devices[std::size_t(s.target_device())];
  experiments::ScenarioInputs in = s.inputs();
  in.system_spec = nullptr;
  in.hw_spec = &dev.hardware;
  std::vector<experiments::PlanCandidate> out;
  const auto r = experiments::run_candidate_scenario(s, "toy-ar", in, kScheme, "target on " + dev.name, out);
  if (!r) return out;
  experiments::PlanCandidate c(kScheme, "target on " + dev.name);
  c.tbt_s = c.tbt_low_s = c.tbt_high_s = experiments::ResultRows(*r).number(0, "t_token_s");
  c.parameters = "one token per step";
  c.acceptance = "none (no speculation)";
  c.reproduce = experiments::reproduce_command(s, "toy-ar " + s.hw_args(s.target_device()));
  out.push_back(c);
  return out;
}

const experiments::PlanSchemeRegistration toy_scheme_registration{
    {"toy AR", "toy: the toy-ar scenario on the target's device", 90, run_toy_scheme}};

}  // namespace
}  // namespace toy
