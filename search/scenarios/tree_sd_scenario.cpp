// tree-sd (paper 000): tree speculative decoding on one device; per context, the verification
// length x that maximises P_eff = AAT / (T_v + T_d), its speedup over AD and the regime, from
// the x optimiser (search/optimizer.hpp) exactly as `specdse optimize` computes them.
#include <fmt/format.h>

#include <algorithm>

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
               "aat_at_best", "t_verify_s", "t_draft_s", "ridge_x", "regime", "at_search_limit"};
  for (long long L : ctx.contexts) {
    const auto aat = ctx.aat(L);
    const auto o = optimize_context(*ctx.engine, w, L, aat, options);
    // The largest x searched: x-max, or the algorithm's largest tree when smaller (as `optimize`
    // words it).
    const bool tree_bound = w.algorithm->max_x > 0 && w.algorithm->max_x < options.x_max;
    const int limit = tree_bound ? w.algorithm->max_x : options.x_max;
    std::string edge;
    if (o.best.x >= limit && limit > 1)
      edge = tree_bound ? fmt::format("x = {}: the algorithm's largest tree", limit)
                        : fmt::format("x = {}: raise --x-max", limit);
    if (edge.empty()) edge = measured_edge_note(aat, o.best.x);
    r.rows.push_back({ctx.hw->name, w.target.name, w.algorithm->name, std::int64_t(L), o.ar.p_eff(),
                      std::int64_t(o.best.x), o.best.p_eff(), o.speedup(), o.best.aat, o.best.t_verify_s,
                      o.best.t_draft_s, o.ridge_x.value(), roofline::to_string(o.regime.value()), edge});
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
