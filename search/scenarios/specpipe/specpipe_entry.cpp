// The SpecPipe scenario (paper 002) in the scenario registry, and so `specdse specpipe`, `specdse
// scenario specpipe`, `specdse.specpipe(...)` in Python and scenario sweeps: for each tree width
// w and candidate count k, N tokens are decoded on the system timeline (tree levels through the
// pipeline, pruning, flushes on misses; hits drawn from the hit model with a seeded RNG) and the
// time between tokens (TBT) is reported with paper 002's analytic E(T) beside it; the best
// (w, k) is marked, and plain pipeline parallelism, the system's baseline stacks (PP-vLLM), PP
// with SpecInfer's static tree and PP with EAGLE-3 run on the same system as baselines. The
// best run's timeline is the scenario's trace.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "models/config_error.hpp"
#include "search/acceptance/probability_trace.hpp"
#include "search/scenarios/scenario.hpp"
#include "search/scenarios/specpipe/hit_curve.hpp"
#include "search/scenarios/specpipe/level_accuracy.hpp"
#include "search/scenarios/specpipe/specpipe_scenario.hpp"
#include "sim/system/timeline.hpp"

namespace search::specpipe {
namespace {

// Context when none is given: paper 002 §4's prompts are about 1 Ki tokens.
constexpr long long kDefaultContext = 1024;

std::vector<ScenarioCell> result_row(const specpipe::ScenarioResult& r, double pp_mean, bool best) {
  const auto& m = r.timed;
  double umin = 1, umax = 0;
  for (double u : m.stage_utilisation) umin = std::min(umin, u), umax = std::max(umax, u);
  const bool eq = r.method.rfind("specpipe", 0) == 0 && r.batch == 1;  // E(T) is a single-request formula
  const double substituted = r.plan.checks ? double(r.plan.substituted) / double(r.plan.checks) : 0.0;
  auto opt = [eq](double v) -> ScenarioCell { return eq ? ScenarioCell(v) : ScenarioCell(std::string()); };
  return {r.method, std::int64_t(r.batch), std::int64_t(r.w), std::int64_t(r.k), r.tree, m.tbt.mean_s, m.tbt.p50_s,
          m.tbt.p90_s, m.tbt.p99_s, m.tbt.tokens_per_s, m.tokens_per_s_total, r.hit_rate, substituted, r.flush_rate,
          m.mean_step_s, opt(r.e_eq1_s), opt(r.e_eq2_s), opt(r.e_mech_s), m.link_bytes_per_step, m.max_hop_bytes,
          umin, umax, m.draft_utilisation, pp_mean > 0 && m.tbt.mean_s > 0 ? pp_mean / m.tbt.mean_s : 0.0,
          std::string(best ? "*" : "")};
}

search::ScenarioResult run_specpipe_entry(const ScenarioContext& ctx) {
  ctx.require(ctx.workload != nullptr, "--model");
  ctx.require(!ctx.text("system").empty(), "--system");
  ctx.require(!ctx.text("draft").empty(), "--draft");
  ctx.require(ctx.configs != nullptr, "the config registry");
  if (ctx.contexts.size() > 1)
    throw models::InputError(fmt::format("scenario specpipe: --context: one context length (SpecPipe holds it fixed), got {}",
                                         ctx.contexts.size()));
  const auto& reg = *ctx.configs;
  const auto widths = ctx.integers("w");
  const auto cands = ctx.integers("k");
  auto batches = ctx.integers("batch");
  std::sort(batches.begin(), batches.end());
  batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
  const long long tokens = ctx.integer("tokens");
  const auto seed = std::uint64_t(ctx.integer("seed"));
  const std::string& rank_trace = ctx.text("trace");
  const bool fixed_rate = !ctx.text("hit-rate").empty();
  const double hit_rate = fixed_rate ? ctx.real("hit-rate") : 0.0;
  if (fixed_rate && !rank_trace.empty()) throw models::InputError("--hit-rate and --trace: give one source of hits");
  const Verification verification = parse_verification(ctx.text("verify"));
  const DraftConfidence confidence = parse_draft_confidence(ctx.text("confidence"));
  const double top_p = ctx.real("top-p");
  const std::string& engine = ctx.text("engine");
  TimingSetup setup = make_setup(reg, ctx.text("system"), ctx.workload->target.name, ctx.text("draft"), engine,
                                 ctx.contexts.empty() ? kDefaultContext : ctx.contexts.front(),
                                 ctx.real("prune-ms") * 1e-3);
  setup.task_names = ctx.want_trace;
  if (!setup.draft) throw models::InputError("--draft: SpecPipe needs a draft model on the system's draft device");
  // Memory: the widest level and the largest batch decide; an infeasible placement is not timed.
  check_memory(setup, int(*std::max_element(widths.begin(), widths.end())), int(batches.back()));
  const StageTimer timer(setup);

  const std::vector<HitPoint> hit_points =
      load_hit_points(ctx.text("hit-points").empty() ? default_hit_points(reg) : ctx.text("hit-points"));
  // The stated level accuracy (paper 002 §1, §4.1) fixes the slope of the curves it names
  // (level_accuracy.hpp); "none" keeps the slope the fit shares between curves.
  const std::string& level_file = ctx.text("level-accuracy");
  const HitFit fit = level_file == "none"
                         ? fit_hit_curves(hit_points, "hit curve fit")
                         : calibrate_level_accuracy(
                               fit_hit_curves(hit_points, "hit curve fit"), hit_points,
                               load_level_accuracy(level_file.empty() ? reg.dir() + "/acceptance/specpipe_level_accuracy.csv"
                                                                      : level_file),
                               confidence);
  const HitCurve& curve = fit.curve(ctx.text("hit-curve").empty() ? setup.draft->name : ctx.text("hit-curve"));
  const long long largest_k = *std::max_element(cands.begin(), cands.end());
  // Candidates the rank model lists: the largest k asked for and the static tree's branching.
  const int max_k = int(std::max<long long>(largest_k, 8));
  const RankModel ranks = !rank_trace.empty()
                              ? RankModel::from_probability_trace(read_probability_trace(rank_trace), int(largest_k))
                          : fixed_rate ? RankModel::fixed(hit_rate, curve, max_k)
                                       : RankModel::from_curve(curve, max_k, confidence);

  search::ScenarioResult out;
  out.columns = {"method", "batch", "w", "k", "tree", "tbt_mean_s", "tbt_p50_s", "tbt_p90_s", "tbt_p99_s",
                 "tokens_per_s", "tokens_per_s_total", "hit_rate", "substituted_rate", "flush_rate", "step_s",
                 "e_tbt_eq1_s", "e_tbt_eq2_s", "e_tbt_mechanism_s", "link_bytes_per_step", "max_hop_bytes",
                 "stage_util_min", "stage_util_max", "draft_util", "speedup_vs_pp", "best"};
  std::string summary, eagle_note;
  std::shared_ptr<const specpipe::ScenarioResult> traced;
  for (long long batch : batches) {
    const int b = int(batch);
    std::vector<specpipe::ScenarioResult> runs;
    for (long long w : widths)
      for (long long k : cands) {
        SpecPipeParams p;
        p.stages = timer.stages();
        p.width = int(w);
        p.candidates = int(k);
        p.tokens = tokens;
        p.seed = seed;
        p.verification = verification;
        p.top_p = top_p;
        runs.push_back(run_specpipe(setup, timer, p, ranks, b));
        if (b > 1) runs.push_back(run_specpipe_db(setup, timer, p, b, ranks));
      }
    std::size_t best = 0;
    for (std::size_t i = 1; i < runs.size(); ++i)
      if (runs[i].timed.tbt.mean_s < runs[best].timed.tbt.mean_s) best = i;
    std::vector<specpipe::ScenarioResult> base;
    if (ctx.flag("baselines")) {
      base.push_back(run_plain_pp(setup, timer, tokens, b));
      for (auto& r : run_stack_baselines(setup, tokens, b)) base.push_back(std::move(r));
      if (b == 1)
        for (auto& r : run_tp_stack_baselines(setup)) base.push_back(std::move(r));
      // The static tree needs ranks up to its widest branching (a trace may list fewer).
      const auto& branching = specinfer_branching();
      if (ranks.max_k() >= *std::max_element(branching.begin(), branching.end()))
        base.push_back(run_static_tree(setup, timer, tokens, ranks, seed, b));
      if (auto e = run_eagle_baseline(reg, setup, tokens, seed, b, &eagle_note)) base.push_back(std::move(*e));
    }
    const double pp_mean = base.empty() ? 0.0 : base.front().timed.tbt.mean_s;
    for (std::size_t i = 0; i < runs.size(); ++i) out.rows.push_back(result_row(runs[i], pp_mean, i == best));
    for (const auto& r : base) out.rows.push_back(result_row(r, pp_mean, false));
    const auto& br = runs[best];
    std::string vs;
    for (const auto& r : base)
      vs += fmt::format("{}{} {:.2f} ms{}", vs.empty() ? "" : ", ", r.method, r.timed.tbt.mean_s * 1e3,
                        r.tree.empty() ? "" : " (" + r.tree + ")");
    summary += fmt::format("{}batch {}: best w={} k={}: TBT {:.2f} ms{}, {:.1f} tokens/s in all, hit rate {:.3f}{}",
                           summary.empty() ? "" : "; ", b, br.w, br.k, br.timed.tbt.mean_s * 1e3,
                           b == 1 ? fmt::format(" (E(T) eq.2 {:.2f} ms)", br.e_eq2_s * 1e3) : "",
                           br.timed.tokens_per_s_total, br.hit_rate, vs.empty() ? "" : "; " + vs);
    if (!traced) traced = std::make_shared<const specpipe::ScenarioResult>(std::move(runs[best]));
  }
  out.footer = fmt::format(
      "{}; hits from {}; verification {}{}; hit curve '{}' H(k)=1/(1+exp(-({:.3f}+{:.3f} ln k))), fit R^2={:.4f} over {} "
      "points; {} tokens, seed {}, engine {}{}",
      summary, ranks.describe(), verification_name(verification),
      verification == Verification::top_p ? fmt::format(" (p {}, nucleus {} tokens)", top_p, ranks.nucleus_size(top_p))
                                          : "",
      curve.name, curve.a, curve.b, fit.r2, fit.n, tokens, seed, engine,
      eagle_note.empty() ? "" : "; EAGLE-3 baseline skipped: " + eagle_note);
  out.write_trace = [traced](std::ostream& os) { sim::write_chrome_trace(traced->timed.graph, traced->timed.run, os); };
  return out;
}

const ScenarioRegistration registered(
    {"specpipe",
     "SpecPipe (paper 002): TBT per tree width w and candidates k on a pipeline system, best marked, PP baselines",
     {param::text("system", "specpipe-8x3090-pcie", "system config name (configs/systems) or path"),
      param::text("draft", "llama-3.2-1b", "draft model on the system's draft device"),
      param::integers("w", "64", 1, 4096, "nodes", "tree widths w (nodes per level), e.g. 1,2,4,8-16"),
      param::integers("k", "16", 1, 4096, "candidates", "candidates per bottom node k, e.g. 2,4,16"),
      param::integer("tokens", 2000, 1, 1e6, "tokens", "tokens decoded per run (after the first)"),
      param::integer("seed", 1, 0, 9.0e18, "", "seed of the hit draws"),
      param::real("prune-ms", 5.0, 0, 1e4, "ms",
                  "pruning cost per step and stage (paper 002 §4.2 measured ~5 ms on its two-server testbed)"),
      param::text("hit-points", "",
                  "hit points CSV (curve,draft,target,k,hit); default configs/acceptance/specpipe_hit_points.csv"),
      param::text("hit-curve", "", "curve in the hit points to use (default: the draft's name)"),
      param::text("level-accuracy", "",
                  "stated level accuracies that fix a curve's slope (curve,width,candidates,stages,accuracy); default "
                  "configs/acceptance/specpipe_level_accuracy.csv (paper 002's >95 %), none: the shared slope"),
      param::optional_real("hit-rate", 0, 1, "", "fixed hit rate instead of the hit curve"),
      param::text("trace", "", "probability trace (DESIGN.md) whose ranks and draft probabilities replace the hit curve"),
      param::integers("batch", "1", 1, 1024, "requests",
                      "requests decoded together, e.g. 1,2,4-32 (> 1: SpecPipe with the requests taking turns at "
                      "stage 0 and SpecPipe-DB, dynamic batching; baselines in micro-batches)"),
      param::choice("verify", "greedy", {"greedy", "relaxed", "top-p"},
                    "greedy (lossless, top-1 of the target), relaxed (the level's best candidate, no stall) or top-p "
                    "(a candidate in the target's top-p set); paper 002 §3.4"),
      param::real("top-p", 0.9, 1e-9, 1 - 1e-9, "", "p of --verify top-p"),
      param::choice("confidence", "calibrated", {"calibrated", "constant"},
                    "draft confidence behind the hit curve: calibrated (each context draws its top-1 probability, mean "
                    "H(1), so the beam widens where the draft is unsure) or constant (every node carries the curve's "
                    "mean rank probabilities)"),
      param::boolean("baselines", true,
                     "run the baselines (PP, the system's baseline_stacks such as PP-vLLM, PP+SpecInfer tree, PP+EAGLE-3)"),
      param::choice("engine", "roofline", {"roofline", "sim", "sim-clocked"}, "latency engine for every device")},
     run_specpipe_entry,
     "specpipe",
     {"model", "context"},
     {"model"}});

}  // namespace
}  // namespace search::specpipe
