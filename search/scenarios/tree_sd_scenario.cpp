// tree-sd (paper 000): tree speculative decoding on one device; per context, the verification
// length x that maximises P_eff = AAT / (T_v + T_d), its speedup over AD and the regime, from
// the x optimiser (search/optimizer.hpp) exactly as `specdse optimize` computes them.
#include "search/scenarios/scenario.hpp"

namespace search {
namespace {

ScenarioResult run_tree_sd(const ScenarioContext& ctx) {
  ctx.require(ctx.engine != nullptr, "--hw");
  ctx.require(ctx.workload != nullptr && ctx.workload->algorithm != nullptr, "--model and --algorithm");
  ctx.require(!ctx.contexts.empty(), "--context");
  OptimizeOptions options;
  options.x_max = int(ctx.integer("x-max"));
  options.measured_x_only = ctx.flag("measured-only");
  const auto& w = *ctx.workload;
  ScenarioResult r;
  r.columns = {"hw", "model", "algorithm", "context", "ar_tokens_per_s", "best_x", "best_tokens_per_s", "speedup",
               "aat_at_best", "t_verify_s", "t_draft_s", "ridge_x", "regime"};
  for (long long L : ctx.contexts) {
    const auto o = optimize_context(*ctx.engine, w, L, ctx.aat(L), options);
    r.rows.push_back({ctx.hw->name, w.target.name, w.algorithm->name, std::int64_t(L), o.ar.p_eff(),
                      std::int64_t(o.best.x), o.best.p_eff(), o.speedup(), o.best.aat, o.best.t_verify_s,
                      o.best.t_draft_s, o.ridge_x.value(), roofline::to_string(o.regime.value())});
  }
  return r;
}

const ScenarioRegistration registered(
    {"tree-sd",
     "Tree SD on one device (paper 000): best x per context, speedup over AD, regime (as `specdse optimize`)",
     {param::integer("x-max", 128, 1, 4096, "tokens", "largest verification length considered"),
      param::boolean("measured-only", false, "evaluate only x with a measured AAT")},
     run_tree_sd,
     "",
     {"hw", "model", "algorithm", "context", "batch", "task", "data", "source-table", "engine"},
     {"hw", "model", "algorithm", "context"}});

}  // namespace
}  // namespace search
