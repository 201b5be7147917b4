// tree-sd (paper 000): tree speculative decoding on one device; per context, the verification
// length x that maximises P_eff = AAT / (T_v + T_d), its speedup over AD and the regime, from
// the x optimiser (search/optimizer.hpp) exactly as `specdse optimize` computes them. AAT(x) from
// the measured tables, or (--acceptance BAND) from each fit of an acceptance process band: the
// rows at the central fit (as `optimize --acceptance`), speedup_low / _high over the fits.
#include <fmt/format.h>

#include <algorithm>

#include "models/algorithm_spec.hpp"

#include "search/acceptance/acceptance_statistics.hpp"
#include "search/acceptance/process_aat.hpp"
#include "search/scenarios/scenario.hpp"
#include "search/scenarios/serial_step_trace.hpp"

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
  // A band: AAT of each fit's chain or best-first tree (context-independent), the central first.
  std::vector<AatSource> band_aat;
  std::string acceptance = "measured";
  if (!ctx.text("acceptance").empty()) {
    const ProcessBand band = resolve_process_band(ctx.text("acceptance"), ctx.configs->dir(), "--acceptance");
    const bool chain = w.algorithm->tree_kind == models::TreeKind::chain;
    const int x_max = std::max(options.x_max, kMinExactAatPoints);
    const auto add = [&](const ProcessBandMember& m) {
      const std::string what = fmt::format("acceptance process {} ({})", band.name, chain ? "chain" : "best-first trees");
      band_aat.push_back(exact_aat_source(process_aat(AcceptanceProcess(m.params, band.name), chain, x_max), what));
    };
    add(band.central());
    for (const auto* m : band.others()) add(*m);
    acceptance = fmt::format("{} ({})", band.column(), chain ? "chains" : "best-first trees");
  }
  ScenarioResult r;
  r.columns = {"hw", "model", "algorithm", "context", "ar_tokens_per_s", "best_x", "best_tokens_per_s", "speedup",
               "aat_at_best", "t_verify_s", "t_draft_s", "ridge_x", "regime", "ridge_x_bound", "at_search_limit", "speedup_low",
               "speedup_high", "acceptance"};
  r.narrow_columns = {"context", "ar_tokens_per_s", "best_x", "best_tokens_per_s", "speedup", "aat_at_best", "ridge_x",
                      "regime", "at_search_limit"};
  for (long long L : ctx.contexts) {
    const auto aat = band_aat.empty() ? ctx.aat(L) : band_aat.front();
    const std::string row_acceptance = aat.note.empty() ? acceptance : acceptance + ", " + aat.note;
    const auto o = optimize_context(*ctx.engine, w, L, aat, options);
    // Over the band: each fit's own best x.
    double low = o.speedup(), high = low;
    for (std::size_t i = 1; i < band_aat.size(); ++i) {
      const double s = optimize_context(*ctx.engine, w, L, band_aat[i], options).speedup();
      low = std::min(low, s), high = std::max(high, s);
    }
    const std::string edge = search_limit_note(w.algorithm.get(), options.x_max, o.best.x, aat);
    if (ctx.want_trace && !r.write_trace) {
      // The first context's step at its best x: the drafter's passes, then the target's verify.
      r.write_trace = serial_step_trace(
          ctx.hw->name, {{fmt::format("draft: {} tree of {} nodes", w.algorithm->name, o.best.x - 1), "draft",
                          o.best.t_draft_s, false},
                         {fmt::format("verify {} tokens (context {})", o.best.x, L), "compute", o.best.t_verify_s, false}});
      r.footer = fmt::format("trace: one step at context {}, x = {}", L, o.best.x);
    }
    r.rows.push_back({ctx.hw->name, w.target.name, w.algorithm->name, std::int64_t(L), o.ar.p_eff(),
                      std::int64_t(o.best.x), o.best.p_eff(), o.speedup(), o.best.aat, o.best.t_verify_s,
                      o.best.t_draft_s, o.ridge_x.value(), roofline::to_string(o.regime.value()), ridge_bound_note(o), edge, low, high,
                      row_acceptance});
  }
  return r;
}

const ScenarioRegistration tree_sd_scenario_registration(
    {"tree-sd",
     "Tree SD on one device (paper 000): best x per context, speedup over AD, regime (as `specdse optimize`)",
     {param::integer("x-max", 128, 1, double(kMaxVerificationLength), "tokens", "largest verification length considered"),
      param::boolean("measured-only", false, "evaluate only x with a measured AAT"),
      param::acceptance_band("", " instead of the measured AAT: its fits' chains or best-first trees")},
     run_tree_sd,
     "",
     {"hw", "model", "algorithm", "context", "batch", "task", "data", "source-table", "engine"},
     {"hw", "model", "algorithm", "context"},
     ""});  // no plot script

}  // namespace
}  // namespace search
