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
#include "search/scenarios/tree_sd/tree_sd_scenario.hpp"
#include "search/scenarios/serial_step_trace.hpp"
#include "search/work_bound.hpp"
#include "sim/system/system_costs.hpp"

namespace search::tree_sd {
namespace {

// The acceptance options as given (by presence: an option at its default was not given).
AcceptanceOptions acceptance_options(const ScenarioContext& ctx, const Params& p) {
  AcceptanceOptions o;
  o.data = ctx.data;
  o.source_table = ctx.source_table;
  o.aat_from = p.aat_from;
  o.trace = p.trace;
  o.process = p.acceptance;
  if (p.alpha) o.alpha = *p.alpha;
  check_acceptance_options(o);
  return o;
}

// AAT of each fit of the band other than its central one (the row's): speedup_low / _high.
std::vector<AatSource> other_band_fits(const ScenarioContext& ctx, const Params& p,
                                       const models::AlgorithmSpec& algorithm, int x_max) {
  std::vector<AatSource> out;
  if (p.acceptance.empty()) return out;
  const ProcessBand band = resolve_process_band(p.acceptance, ctx.configs->dir(), "--acceptance");
  const bool chain = algorithm.tree_kind == models::TreeKind::chain;
  const int points = std::max(x_max, kMinExactAatPoints);
  for (const auto* m : band.others())
    out.push_back(exact_aat_source(process_aat(AcceptanceProcess(m->params, band.name), chain, points),
                                   fmt::format("acceptance process {}", band.name)));
  return out;
}

TypedResult<Row> run_tree_sd(const ScenarioContext& ctx, const Params& p) {
  ctx.require(ctx.engine != nullptr && ctx.deployment != nullptr, "--hw");
  ctx.require(ctx.workload != nullptr && ctx.workload->algorithm != nullptr, "--model and --algorithm");
  ctx.require(!ctx.contexts.empty(), "--context");
  const auto& w = *ctx.workload;
  const auto& hw = *ctx.hw;
  OptimizeOptions opt;
  opt.x_max = int(p.x_max);
  opt.measured_x_only = p.measured_only;
  opt.full_curve = p.x_search == "every_x";
  const DraftPlacementNames names{p.draft_hw, p.draft_link, p.system, p.draft_device};
  opt.draft_placement = resolve_draft_placement(*ctx.configs, names, ctx.engine_name, hw.name);
  // Measurements are keyed by the model config's own name, so a model given as a YAML path
  // finds them too.
  const AatResolver resolver(*ctx.configs, acceptance_options(ctx, p), {w.target.name, w.algorithm->name, ctx.task},
                             w.algorithm.get(), opt.x_max);
  const auto band_others = other_band_fits(ctx, p, *w.algorithm, opt.x_max);
  require_work_within("tree-sd", fmt::format("--context ({}) x --batch ({}) x --x-max ({}){}", ctx.contexts.size(),
                                             p.batch.size(), opt.x_max,
                                             band_others.empty() ? "" : fmt::format(" x band fits ({})", band_others.size() + 1)),
                      double(ctx.contexts.size()) * double(p.batch.size()) * double(opt.x_max) *
                          double(band_others.size() + 1),
                      kMaxTreeSdEvaluations, "verification lengths");

  TypedResult<Row> out;
  ScenarioResult& r = out.table;
  r.narrow_columns = {"context", "batch", "ar_tokens_per_s", "best_x", "best_tokens_per_s", "speedup", "aat_at_best",
                      "ridge_x", "regime", "at_search_limit"};
  ScenarioTable& curve = r.tables["curve"];
  curve.columns = {"context", "batch", "x", "aat", "t_verify_s", "t_draft_s", "tokens_per_s"};
  std::vector<std::string> ridge_bounds;  // rows whose ridge is only a lower bound
  // Every sequence of a batch verifies its own tree against its own context: T_v and T_d grow
  // with B, AAT does not; tokens/s are per sequence (DESIGN.md), the speed-up is over AD at the
  // same batch.
  for (long long L : ctx.contexts)
    for (long long b : p.batch) {
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
      Row row;
      row.hw = hw.name;
      row.model = w.target.name;
      row.algorithm = w.algorithm->name;
      row.task = ctx.task;
      row.context = L;
      row.batch = b;
      row.ar_tokens_per_s = o.ar.p_eff();
      row.best_x = o.best.x;
      row.best_tokens_per_s = o.best.p_eff();
      row.speedup = o.speedup();
      row.aat_at_best = o.best.aat;
      row.t_verify_s = o.best.t_verify_s;
      row.t_draft_s = o.best.t_draft_s;
      row.ridge_x = o.ridge_x;
      row.regime = o.regime ? roofline::to_string(*o.regime) : std::string();
      row.ridge_x_bound = ridge_bound_note(o);
      row.aat_source = aat.description;
      row.at_search_limit = search_limit_note(w.algorithm.get(), opt.x_max, o.best.x, aat.source);
      row.aat_source_tables = aat.source_tables;
      row.speedup_low = low;
      row.speedup_high = high;
      out.rows.push_back(std::move(row));
      for (const auto& point : o.curve)
        curve.rows.push_back({std::int64_t(L), std::int64_t(b), std::int64_t(point.x), point.aat, point.t_verify_s,
                              point.t_draft_s, point.p_eff()});
    }
  std::vector<std::string> footer;
  if (!opt.draft_placement.is_same_device())
    footer.push_back(fmt::format("draft on {} over {}: t_draft_s is its passes there plus both link transfers",
                                 opt.draft_placement.device(), opt.draft_placement.link()));
  // Whether ridge_x can be trusted, said under the table (its column is not in the narrow view).
  footer.push_back(ridge_bounds.empty()
                       ? std::string("ridge_x: within the x range searched on every row")
                       : fmt::format("caveat: ridge_x is only a lower bound at {}", fmt::join(ridge_bounds, "; ")));
  // x-search optimum skips x only where the engine's T_v never falls as x grows; on the others
  // it evaluates every x, and says so (the rows are then those of every_x, ridge_x included).
  if (!opt.full_curve && !ctx.engine->verify_time_non_decreasing_in_x())
    footer.push_back(fmt::format("x-search optimum: every x evaluated ({} engine on {}: its T_v can fall as x grows, "
                                 "so no x can be skipped); ridge_x and regime as with every_x",
                                 ctx.engine_name, hw.name));
  // Acceptance measured for another workload (aat-from) is said, not silently used.
  if (const std::string borrowed = resolver.borrowed(); !borrowed.empty()) {
    footer.push_back("caveat: acceptance borrowed: " + borrowed);
    r.meta.push_back({"borrowed", std::vector<std::string>{borrowed}});
  }
  if (r.write_trace)
    footer.push_back(fmt::format("trace: one step at context {}, batch {}, x = {}", out.rows[0].context,
                                 out.rows[0].batch, out.rows[0].best_x));
  r.footer = fmt::format("{}", fmt::join(footer, "\n"));
  return out;
}

}  // namespace

const TypedScenario<Params, Row>& scenario() {
  static const TypedScenario<Params, Row> typed(
      {"tree-sd",
     "Best verification length x per context: P_eff = AAT / (T_v + T_d), speedup over AD (tree SD on one device, "
     "paper 000)",
       {},
       nullptr,
     "optimize",
     {"hw", "stack", "model", "algorithm", "context", "task", "data", "source-table", "engine"},
     {"hw", "model", "algorithm", "context"},
     ""},
      ParamBindings<Params>()
          .add(param::integers("batch", "1", 1, double(kMaxBatch), "sequences",
                      "sequences per step B, e.g. 1,8,32 (each with its own tree and context); tokens/s per sequence"), &Params::batch)
          .add(param::integer("x-max", 128, 1, double(kMaxVerificationLength), "tokens", "largest verification length considered"), &Params::x_max)
          .add(param::boolean("measured-only", false, "evaluate only x with a measured AAT"), &Params::measured_only)
          .add(param::choice("x-search", "every_x", {"every_x", "optimum"},
                    "every_x: T_v at every x (with ridge_x and regime); optimum: T_v only at the x that can still be "
                    "the best (same best, AD and speed-up; ridge_x and regime left empty) where the engine's T_v "
                    "never falls as x grows (FPGA sim, peak roofline), every x elsewhere (said in the footer)"), &Params::x_search)
          .add(param::text("aat-from", "",
                  "use the measured AAT of another workload, MODEL/ALGORITHM/TASK (e.g. "
                  "llama-3.1-8b-instruct/longspec-tree/govreport)"), &Params::aat_from)
          .add(param::optional_real("alpha", 0, 1, "",
                           "per-token acceptance probability of a chain draft, in (0, 1): AAT(x) = (1 - a^x) / (1 - a)"), &Params::alpha)
          .add(param::text("trace", "", "acceptance trace (DESIGN.md format): AAT of the chain, or of the prior-score tree"), &Params::trace)
          .add(param::acceptance_band("", " instead of the measured AAT: its central fit's chains or best-first trees (the "
                                 "row), the other fits' speed-ups (speedup_low / _high)"), &Params::acceptance)
          .add(param::text("draft-hw", "",
                  "run the draft on a device of this hardware (e.g. xeon-16c), joined to the target's by draft-link; "
                  "T_d = its passes there + the link transfers (default: the target's device)"), &Params::draft_hw)
          .add(param::text("draft-link", "", fmt::format("with draft-hw: the link between the two devices (default {})",
                                                kDefaultDraftLink)), &Params::draft_link)
          .add(param::text("system", "", "take the draft device and its link from this system (configs/systems); its target "
                                "device must be --hw"), &Params::system)
          .add(param::text("draft-device", "", "with system: the device that runs the draft (default: the system's "
                                      "placement.draft)"), &Params::draft_device),
      ColumnBindings<Row>()
          .add("hw", &Row::hw)
          .add("model", &Row::model)
          .add("algorithm", &Row::algorithm)
          .add("task", &Row::task)
          .add("context", &Row::context)
          .add("batch", &Row::batch)
          .add("ar_tokens_per_s", &Row::ar_tokens_per_s)
          .add("best_x", &Row::best_x)
          .add("best_tokens_per_s", &Row::best_tokens_per_s)
          .add("speedup", &Row::speedup)
          .add("aat_at_best", &Row::aat_at_best)
          .add("t_verify_s", &Row::t_verify_s)
          .add("t_draft_s", &Row::t_draft_s)
          .add("ridge_x", &Row::ridge_x)
          .add("regime", &Row::regime)
          .add("ridge_x_bound", &Row::ridge_x_bound)
          .add("aat_source", &Row::aat_source)
          .add("at_search_limit", &Row::at_search_limit)
          .add("aat_source_tables", &Row::aat_source_tables)
          .add("speedup_low", &Row::speedup_low)
          .add("speedup_high", &Row::speedup_high),
      run_tree_sd);
  return typed;
}

namespace {
// Registers the scenario when the program starts (the registry lists it before any call).
const auto& tree_sd_registration = scenario();
}  // namespace

}  // namespace search::tree_sd
