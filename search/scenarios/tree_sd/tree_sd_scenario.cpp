// tree-sd (paper 000): tree (or chain) speculative decoding on one device. Per context and batch,
// the verification length x that maximises P_eff = AAT / (T_v + T_d) (search/optimizer.hpp), its
// speed-up over AD at the same batch, the regime and where the acceptance came from; and every
// evaluated x (the P_eff curve, the "curve" table). `specdse optimize` is this scenario's
// generated command, so the command, `specdse scenario tree-sd`, Python's `specdse.optimize`,
// sweeps and `plan`'s tree SD scheme share one implementation, one set of bounds and columns.
//
// Acceptance (search/acceptance/aat_resolver.hpp): the measured AAT of the workload (or of
// another, aat-from), a per-token alpha (chains), an acceptance trace, or an acceptance process
// band, whose central fit gives the row and whose other fits give speedup_low / _high.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "models/algorithm_spec.hpp"
#include "models/config_error.hpp"
#include "search/acceptance/aat_resolver.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "search/acceptance/process_aat.hpp"
#include "search/draft_placement_names.hpp"
#include "search/scenarios/scenario.hpp"
#include "search/scenarios/serial_step_trace.hpp"
#include "sim/system/system_costs.hpp"

namespace search {
namespace {

// The acceptance options as given (by presence: an option at its default was not given).
AcceptanceOptions acceptance_options(const ScenarioContext& ctx) {
  AcceptanceOptions o;
  o.data = ctx.data;
  o.source_table = ctx.source_table;
  o.aat_from = ctx.text("aat-from");
  o.trace = ctx.text("trace");
  o.process = ctx.text("acceptance");
  if (!ctx.text("alpha").empty()) o.alpha = ctx.real("alpha");
  check_acceptance_options(o);
  return o;
}

// AAT of each fit of the band other than its central one (the row's): speedup_low / _high.
std::vector<AatSource> other_band_fits(const ScenarioContext& ctx, const models::AlgorithmSpec& algorithm, int x_max) {
  std::vector<AatSource> out;
  if (ctx.text("acceptance").empty()) return out;
  const ProcessBand band = resolve_process_band(ctx.text("acceptance"), ctx.configs->dir(), "--acceptance");
  const bool chain = algorithm.tree_kind == models::TreeKind::chain;
  const int points = std::max(x_max, kMinExactAatPoints);
  for (const auto* m : band.others())
    out.push_back(exact_aat_source(process_aat(AcceptanceProcess(m->params, band.name), chain, points),
                                   fmt::format("acceptance process {}", band.name)));
  return out;
}

ScenarioResult run_tree_sd(const ScenarioContext& ctx) {
  ctx.require(ctx.engine != nullptr && ctx.deployment != nullptr, "--hw");
  ctx.require(ctx.workload != nullptr && ctx.workload->algorithm != nullptr, "--model and --algorithm");
  ctx.require(!ctx.contexts.empty(), "--context");
  const auto& w = *ctx.workload;
  const auto& hw = *ctx.hw;
  OptimizeOptions opt;
  opt.x_max = int(ctx.integer("x-max"));
  opt.measured_x_only = ctx.flag("measured-only");
  opt.full_curve = ctx.text("x-search") == "every_x";
  const DraftPlacementNames names{ctx.text("draft-hw"), ctx.text("draft-link"), ctx.text("system"),
                                  ctx.text("draft-device")};
  opt.draft_placement = resolve_draft_placement(*ctx.configs, names, ctx.engine_name, hw.name);
  // Measurements are keyed by the model config's own name, so a model given as a YAML path
  // finds them too.
  const AatResolver resolver(*ctx.configs, acceptance_options(ctx), {w.target.name, w.algorithm->name, ctx.task},
                             w.algorithm.get(), opt.x_max);
  const auto band_others = other_band_fits(ctx, *w.algorithm, opt.x_max);

  ScenarioResult r;
  r.columns = {"hw", "model", "algorithm", "task", "context", "batch", "ar_tokens_per_s", "best_x",
               "best_tokens_per_s", "speedup", "aat_at_best", "t_verify_s", "t_draft_s", "ridge_x", "regime",
               "ridge_x_bound", "aat_source", "at_search_limit", "aat_source_tables", "speedup_low", "speedup_high"};
  r.narrow_columns = {"context", "batch", "ar_tokens_per_s", "best_x", "best_tokens_per_s", "speedup", "aat_at_best",
                      "ridge_x", "regime", "at_search_limit"};
  ScenarioTable& curve = r.tables["curve"];
  curve.columns = {"context", "batch", "x", "aat", "t_verify_s", "t_draft_s", "tokens_per_s"};
  std::vector<std::string> ridge_bounds;  // rows whose ridge is only a lower bound
  // Every sequence of a batch verifies its own tree against its own context: T_v and T_d grow
  // with B, AAT does not; tokens/s are per sequence (DESIGN.md), the speed-up is over AD at the
  // same batch.
  for (long long L : ctx.contexts)
    for (long long b : ctx.integers("batch")) {
      models::Workload wb = w;
      wb.batch = int(b);
      // The largest step searched must fit beside the weights: infeasible, not timed, otherwise.
      sim::MemoryQuery mq;
      mq.batch = wb.batch;
      mq.step_tokens = opt.x_max;
      mq.kv_tokens = L + opt.x_max;
      ctx.deployment->require_workload_fit(0, wb.target, wb.algorithm.get(), mq);
      const auto aat = resolver.at(L);
      const auto o = optimize_context(*ctx.engine, wb, L, aat.source, opt);
      double low = o.speedup(), high = low;
      for (const auto& other : band_others) {
        const double s = optimize_context(*ctx.engine, wb, L, other, opt).speedup();
        low = std::min(low, s), high = std::max(high, s);
      }
      if (o.ridge_at_search_limit)
        ridge_bounds.push_back(fmt::format("context {} batch {} (x / T_v still rises at x = {}, the largest searched)",
                                           L, b, o.curve.back().x));
      if (ctx.want_trace && !r.write_trace) {
        // The first row's step at its best x: the drafter's passes, then the target's verify.
        r.write_trace = serial_step_trace(
            hw.name, {{fmt::format("draft: {} tree of {} nodes", w.algorithm->name, o.best.x - 1), "draft",
                       o.best.t_draft_s, false},
                      {fmt::format("verify {} tokens (context {}, batch {})", o.best.x, L, b), "compute",
                       o.best.t_verify_s, false}});
      }
      r.rows.push_back({hw.name, w.target.name, w.algorithm->name, ctx.task, std::int64_t(L), std::int64_t(b),
                        o.ar.p_eff(), std::int64_t(o.best.x), o.best.p_eff(), o.speedup(), o.best.aat,
                        o.best.t_verify_s, o.best.t_draft_s,
                        o.ridge_x ? ScenarioCell(*o.ridge_x) : ScenarioCell(std::string()),
                        o.regime ? roofline::to_string(*o.regime) : std::string(), ridge_bound_note(o),
                        aat.description, search_limit_note(w.algorithm.get(), opt.x_max, o.best.x, aat.source),
                        aat.source_tables, low, high});
      for (const auto& p : o.curve)
        curve.rows.push_back({std::int64_t(L), std::int64_t(b), std::int64_t(p.x), p.aat, p.t_verify_s, p.t_draft_s,
                              p.p_eff()});
    }
  std::vector<std::string> footer;
  if (!opt.draft_placement.is_same_device())
    footer.push_back(fmt::format("draft on {} over {}: t_draft_s is its passes there plus both link transfers",
                                 opt.draft_placement.device(), opt.draft_placement.link()));
  // Whether ridge_x can be trusted, said under the table (its column is not in the narrow view).
  footer.push_back(ridge_bounds.empty()
                       ? std::string("ridge_x: within the x range searched on every row")
                       : fmt::format("caveat: ridge_x is only a lower bound at {}", fmt::join(ridge_bounds, "; ")));
  // Acceptance measured for another workload (aat-from) is said, not silently used.
  if (const std::string borrowed = resolver.borrowed(); !borrowed.empty()) {
    footer.push_back("caveat: acceptance borrowed: " + borrowed);
    r.meta.push_back({"borrowed", std::vector<std::string>{borrowed}});
  }
  if (r.write_trace)
    footer.push_back(fmt::format("trace: one step at context {}, batch {}, x = {}", std::get<std::int64_t>(r.rows[0][4]),
                                 std::get<std::int64_t>(r.rows[0][5]), std::get<std::int64_t>(r.rows[0][7])));
  r.footer = fmt::format("{}", fmt::join(footer, "\n"));
  return r;
}

const ScenarioRegistration tree_sd_scenario_registration(
    {"tree-sd",
     "Best verification length x per context: P_eff = AAT / (T_v + T_d), speedup over AD (tree SD on one device, "
     "paper 000)",
     {param::integers("batch", "1", 1, double(kMaxBatch), "sequences",
                      "sequences per step B, e.g. 1,8,32 (each with its own tree and context); tokens/s per sequence"),
      param::integer("x-max", 128, 1, double(kMaxVerificationLength), "tokens", "largest verification length considered"),
      param::boolean("measured-only", false, "evaluate only x with a measured AAT"),
      param::choice("x-search", "every_x", {"every_x", "optimum"},
                    "every_x: T_v at every x (with ridge_x and regime); optimum: on the sim engine T_v only at the x "
                    "that can still be the best (same best, AD and speed-up; ridge_x and regime left empty)"),
      param::text("aat-from", "",
                  "use the measured AAT of another workload, MODEL/ALGORITHM/TASK (e.g. "
                  "llama-3.1-8b-instruct/longspec-tree/govreport)"),
      param::optional_real("alpha", 0, 1, "",
                           "per-token acceptance probability of a chain draft, in (0, 1): AAT(x) = (1 - a^x) / (1 - a)"),
      param::text("trace", "", "acceptance trace (DESIGN.md format): AAT of the chain, or of the prior-score tree"),
      param::acceptance_band("", " instead of the measured AAT: its central fit's chains or best-first trees (the "
                                 "row), the other fits' speed-ups (speedup_low / _high)"),
      param::text("draft-hw", "",
                  "run the draft on a device of this hardware (e.g. xeon-16c), joined to the target's by draft-link; "
                  "T_d = its passes there + the link transfers (default: the target's device)"),
      param::text("draft-link", "", fmt::format("with draft-hw: the link between the two devices (default {})",
                                                kDefaultDraftLink)),
      param::text("system", "", "take the draft device and its link from this system (configs/systems); its target "
                                "device must be --hw"),
      param::text("draft-device", "", "with system: the device that runs the draft (default: the system's "
                                      "placement.draft)")},
     run_tree_sd,
     "optimize",
     {"hw", "stack", "model", "algorithm", "context", "task", "data", "source-table", "engine"},
     {"hw", "model", "algorithm", "context"},
     ""});  // no plot script

}  // namespace
}  // namespace search
