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
#include "search/scenarios/specpipe/level_hit_boundary.hpp"
#include "search/scenarios/specpipe/specpipe_acceptance.hpp"
#include "search/scenarios/specpipe/specpipe_entry.hpp"
#include "search/scenarios/specpipe/specpipe_scenario.hpp"
#include "sim/system/timeline.hpp"

namespace search::specpipe::entry {
namespace {

// Context when none is given: paper 002 §4's prompts are about 1 Ki tokens.
constexpr long long kDefaultContext = 1024;
// The boundary's base acceptance where the hits do not come from the process: a good draft whose
// scaled versions span the hit curve's range.
constexpr double kBoundaryAlpha = 0.9;

// A row's acceptance range: the band's low / high where it was run, empty where it was not, the
// row's own time for methods whose times do not depend on the draft's acceptance.
struct RowRange {
  std::optional<double> low, high;
  std::string acceptance;
};

Row result_row(const specpipe::ScenarioResult& r, double pp_mean, bool best, const RowRange& range) {
  const auto& m = r.timed;
  double umin = 1, umax = 0;
  for (double u : m.stage_utilisation) umin = std::min(umin, u), umax = std::max(umax, u);
  const bool eq = r.method.rfind("specpipe", 0) == 0 && r.batch == 1;  // E(T) is a single-request formula
  const double substituted = r.plan.checks ? double(r.plan.substituted) / double(r.plan.checks) : 0.0;
  auto opt = [eq](double v) { return eq ? std::optional<double>(v) : std::nullopt; };
  Row row;
  row.method = r.method;
  row.batch = r.batch;
  row.w = r.w;
  row.k = r.k;
  row.tree = r.tree;
  row.tbt_mean_s = m.tbt.mean_s;
  row.tbt_low_s = range.low;
  row.tbt_high_s = range.high;
  row.tbt_p50_s = m.tbt.p50_s;
  row.tbt_p90_s = m.tbt.p90_s;
  row.tbt_p99_s = m.tbt.p99_s;
  row.tokens_per_s = m.tbt.tokens_per_s;
  row.tokens_per_s_total = m.tokens_per_s_total;
  row.hit_rate = r.hit_rate;
  row.substituted_rate = substituted;
  row.flush_rate = r.flush_rate;
  row.step_s = m.mean_step_s;
  row.e_tbt_eq1_s = opt(r.e_eq1_s);
  row.e_tbt_eq2_s = opt(r.e_eq2_s);
  row.e_tbt_mechanism_s = opt(r.e_mech_s);
  row.link_bytes_per_step = m.link_bytes_per_step;
  row.max_hop_bytes = m.max_hop_bytes;
  row.stage_util_min = umin;
  row.stage_util_max = umax;
  row.draft_util = m.draft_utilisation;
  row.speedup_vs_pp = pp_mean > 0 && m.tbt.mean_s > 0 ? pp_mean / m.tbt.mean_s : 0.0;
  row.acceptance = range.acceptance;
  row.best = best;
  return row;
}

TypedResult<Row> run_specpipe_entry(const ScenarioContext& ctx, const Params& prm) {
  ctx.require(ctx.workload != nullptr, "--model");
  ctx.require(!prm.system.empty(), "--system");
  ctx.require(!prm.draft.empty(), "--draft");
  ctx.require(ctx.configs != nullptr, "the config registry");
  if (ctx.contexts.size() > 1)
    throw models::InputError(fmt::format("scenario specpipe: --context: one context length (SpecPipe holds it fixed), got {}",
                                         ctx.contexts.size()));
  const auto& reg = *ctx.configs;
  const auto& widths = prm.w;
  const auto& cands = prm.k;
  auto batches = prm.batch;
  std::sort(batches.begin(), batches.end());
  batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
  const long long tokens = prm.tokens;
  const auto seed = std::uint64_t(prm.seed);
  const std::string& rank_trace = prm.trace;
  const bool fixed_rate = prm.hit_rate.has_value();
  const double hit_rate = prm.hit_rate.value_or(0.0);
  const Verification verification = parse_verification(prm.verify);
  const double top_p = prm.top_p;
  // p is read only under top-p verification: given with another, it would be silently ignored.
  if (ctx.was_given("top-p") && verification != Verification::top_p)
    throw models::InputError(fmt::format("scenario specpipe: --top-p {} applies with --verify top-p (verification is {})",
                                         top_p, prm.verify));
  const std::string& engine = prm.engine;
  TimingSetup setup = make_setup(reg, prm.system, ctx.workload->target.name, prm.draft, engine,
                                 ctx.contexts.empty() ? kDefaultContext : ctx.contexts.front(),
                                 prm.prune_ms * 1e-3);
  setup.task_names = ctx.want_trace;
  if (!setup.draft) throw models::InputError("--draft: SpecPipe needs a draft model on the system's draft device");
  const StageTimer timer(setup);
  // Memory: the widest level and the largest batch decide; an infeasible placement is not timed.
  check_memory(timer, int(*std::max_element(widths.begin(), widths.end())), int(batches.back()));

  const long long largest_k = *std::max_element(cands.begin(), cands.end());
  // Candidates the rank model lists: the largest k asked for and the static tree's branching.
  const int max_k = int(std::max<long long>(largest_k, kMinRankCandidates));
  SpecPipeAcceptanceRequest rq;
  rq.acceptance = prm.acceptance;
  rq.draft = setup.draft->name;
  rq.target = ctx.workload->target.name;
  rq.hit_points = prm.hit_points;
  rq.hit_curve = prm.hit_curve;
  rq.level_accuracy = prm.level_accuracy;
  rq.confidence = prm.confidence;
  if (fixed_rate) rq.hit_rate = hit_rate;
  rq.trace = rank_trace;
  rq.max_k = max_k;
  rq.trace_k = int(largest_k);
  rq.seed = seed;
  rq.config_dir = reg.dir();
  const SpecPipeAcceptance acceptance = specpipe_acceptance(rq);
  const RankModel& ranks = acceptance.central;
  const bool banded = !acceptance.others.empty();
  // The band's low / high of a run: the same run under every other fit of the band.
  const auto band_range = [&](const specpipe::ScenarioResult& r, auto&& rerun) {
    double lo = r.timed.tbt.mean_s, hi = lo;
    for (const RankModel& other : acceptance.others) {
      const double t = rerun(other).timed.tbt.mean_s;
      lo = std::min(lo, t), hi = std::max(hi, t);
    }
    return std::pair<double, double>{lo, hi};
  };

  // SpecPipe's parameters at width w and k candidates on this system's stages.
  const auto params_for = [&](int w, int k) {
    return SpecPipeParams{timer.stages(), w, k, tokens, seed, verification, top_p};
  };
  TypedResult<Row> typed;
  search::ScenarioResult& out = typed.table;
  out.narrow_columns = {"method", "batch", "w", "k", "tree", "tbt_mean_s", "tbt_low_s", "tbt_high_s", "hit_rate",
                        "speedup_vs_pp", "best"};
  std::string summary, eagle_note, boundary;
  std::shared_ptr<const specpipe::ScenarioResult> traced;
  // With a trace wanted, each method's row keeps its run's timeline (SpecPipe's best row, every
  // baseline that ran on the timeline).
  const auto trace_row = [&](const specpipe::ScenarioResult& r) {
    out.row_traces.resize(typed.rows.size());
    if (!ctx.want_trace || r.timed.graph.empty()) return;
    auto kept = std::make_shared<const specpipe::ScenarioResult>(r);
    out.row_traces.back() = sim::chrome_trace_writer({kept, &kept->timed.graph}, {kept, &kept->timed.run});
  };
  for (long long batch : batches) {
    const int b = int(batch);
    std::vector<specpipe::ScenarioResult> runs;
    for (long long w : widths)
      for (long long k : cands) {
        const SpecPipeParams p = params_for(int(w), int(k));
        runs.push_back(run_specpipe(setup, timer, p, ranks, b));
        if (b > 1) runs.push_back(run_specpipe_db(setup, timer, p, b, ranks));
      }
    std::size_t best = 0;
    for (std::size_t i = 1; i < runs.size(); ++i)
      if (runs[i].timed.tbt.mean_s < runs[best].timed.tbt.mean_s) best = i;
    std::vector<specpipe::ScenarioResult> base;
    if (prm.baselines) {
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
    // The band's range for the best configuration and the static tree (both draw from the draft's
    // acceptance); the other SpecPipe rows are not rerun; the other methods do not depend on it.
    std::string band_note;
    std::size_t best_row = 0;  // the best run's row in typed.rows
    for (std::size_t i = 0; i < runs.size(); ++i) {
      RowRange range{std::nullopt, std::nullopt, acceptance.column};
      if (i == best && banded) {
        const auto& r = runs[i];
        const SpecPipeParams p = params_for(r.w, r.k);
        const bool db = r.method == "specpipe-db";
        const auto [lo, hi] = band_range(r, [&](const RankModel& other) {
          return db ? run_specpipe_db(setup, timer, p, b, other) : run_specpipe(setup, timer, p, other, b);
        });
        range.low = lo, range.high = hi;
        band_note += fmt::format("{}w={} k={} {:.2f}-{:.2f} ms", band_note.empty() ? "" : ", ", r.w, r.k, lo * 1e3, hi * 1e3);
      } else if (!banded) {
        range.low = range.high = runs[i].timed.tbt.mean_s;
      }
      typed.rows.push_back(result_row(runs[i], pp_mean, i == best, range));
      typed.rows.back().acceptance_borrowed = acceptance.borrowed;
      if (i == best) best_row = typed.rows.size() - 1;
      if (i == best) trace_row(runs[i]);
    }
    for (const auto& r : base) {
      RowRange range{r.timed.tbt.mean_s, r.timed.tbt.mean_s, std::string()};
      if (r.method == "pp+specinfer-tree") {
        range.acceptance = acceptance.column;
        if (banded) {
          const auto [lo, hi] = band_range(r, [&](const RankModel& other) {
            return run_static_tree(setup, timer, tokens, other, seed, b);
          });
          range.low = lo, range.high = hi;
          band_note += fmt::format(", {} {:.2f}-{:.2f} ms", r.method, lo * 1e3, hi * 1e3);
        }
      }
      typed.rows.push_back(result_row(r, pp_mean, false, range));
      if (!range.acceptance.empty()) typed.rows.back().acceptance_borrowed = acceptance.borrowed;
      trace_row(r);
    }
    if (!band_note.empty()) band_note = " (over the band: " + band_note + ")";
    const auto& br = runs[best];
    std::string vs;
    for (const auto& r : base)
      vs += fmt::format("{}{} {:.2f} ms{}", vs.empty() ? "" : ", ", r.method, r.timed.tbt.mean_s * 1e3,
                        r.tree.empty() ? "" : " (" + r.tree + ")");
    summary += fmt::format("{}batch {}: best w={} k={}: TBT {:.2f} ms{}, {:.1f} tokens/s in all, hit rate {:.3f}{}{}",
                           summary.empty() ? "" : "; ", b, br.w, br.k, br.timed.tbt.mean_s * 1e3,
                           b == 1 ? fmt::format(" (E(T) eq.2 {:.2f} ms)", br.e_eq2_s * 1e3) : "",
                           br.timed.tokens_per_s_total, br.hit_rate, vs.empty() ? "" : "; " + vs, band_note);
    // Where the draft's acceptance is open, the order is stated as a boundary in the level hit.
    if (b == 1 && prm.boundary && br.method == "specpipe" && !base.empty() && verification == Verification::greedy) {
      std::vector<specpipe::ScenarioResult> fixed;
      for (const auto& r : base)
        if (r.method != "pp+specinfer-tree") fixed.push_back(r);
      const bool tree = std::any_of(base.begin(), base.end(), [](const auto& r) { return r.method == "pp+specinfer-tree"; });
      boundary = level_hit_boundary(setup, timer, params_for(br.w, br.k), fixed, tree, max_k,
                                    acceptance.process ? *acceptance.process
                                                       : AcceptanceProcess::independent(kBoundaryAlpha, search::DraftConfidence::calibrated,
                                                                                        1.0, "independent acceptance 0.9"));
      typed.rows[best_row].level_hit_boundary = boundary;
    }
    if (!traced) traced = std::make_shared<const specpipe::ScenarioResult>(std::move(runs[best]));
  }
  out.footer = fmt::format(
      "{}; hits from {}; verification {}{}; {} tokens, seed {}, engine {}{}{}",
      summary, acceptance.description, verification_name(verification),
      verification == Verification::top_p ? fmt::format(" (p {}, nucleus {} tokens)", top_p, ranks.nucleus_size(top_p))
                                          : "",
      tokens, seed, engine, eagle_note.empty() ? "" : "; EAGLE-3 baseline skipped: " + eagle_note,
      boundary.empty() ? "" : "; " + boundary);
  out.write_trace = sim::chrome_trace_writer({traced, &traced->timed.graph}, {traced, &traced->timed.run});
  return typed;
}

}  // namespace

const TypedScenario<Params, Row>& scenario() {
  static const TypedScenario<Params, Row> typed(
      {"specpipe",
     "SpecPipe (paper 002): TBT per tree width w and candidates k on a pipeline system, best marked, PP baselines",
       {},
       nullptr,
     "specpipe",
     {"model", "context"},
     {"model"},
     ""},
      ParamBindings<Params>()
          .add(param::system("specpipe-8x3090-pcie"), &Params::system)
          .add(param::text("draft", "llama-3.2-1b", "draft model on the system's draft device"), &Params::draft)
          .add(param::integers("w", "64", 1, 4096, "nodes", "tree widths w (nodes per level), e.g. 1,2,4,8-16"), &Params::w)
          .add(param::integers("k", "16", 1, 4096, "candidates", "candidates per bottom node k, e.g. 2,4,16"), &Params::k)
          .add(param::integer("tokens", 2000, 1, 1e6, "tokens", "tokens decoded per run (after the first)"), &Params::tokens)
          .add(param::seed("the hit draws"), &Params::seed)
          .add(param::real("prune-ms", 5.0, 0, 1e4, "ms",
                  "pruning cost per step and stage (paper 002 §4.2 measured ~5 ms on its two-server testbed)"), &Params::prune_ms)
          .add(param::text("acceptance", "auto",
                  "where hits come from: auto (the acceptance process band fitted to paper 002's statistics for its "
                  "1B draft, configs/acceptance/processes/specpipe-paper002.yaml; the hit curve for other drafts), "
                  "hit-curve, or a band's name or path (specdse fit --statistics F --out BAND)"), &Params::acceptance)
          .add(param::boolean("boundary", true,
                     "state SpecPipe's order against each method as a boundary in the level hit (batch 1, greedy; "
                     "the process scaled 0.35-1.05x, or independent acceptance 0.9 scaled so, reruns SpecPipe and SpecInfer's tree)"), &Params::boundary)
          .add(param::text("hit-points", "",
                  "hit points CSV (curve,draft,target,k,hit); default configs/acceptance/specpipe_hit_points.csv"), &Params::hit_points)
          .add(param::text("hit-curve", "", "curve in the hit points to use (default: the draft's name)"), &Params::hit_curve)
          .add(param::text("level-accuracy", "",
                  "stated level accuracies that fix a curve's slope (curve,width,candidates,stages,accuracy); default "
                  "configs/acceptance/specpipe_level_accuracy.csv (paper 002's >95 %), none: the shared slope"), &Params::level_accuracy)
          .add(param::optional_real("hit-rate", 0, 1, "", "fixed hit rate instead of the process or the hit curve"), &Params::hit_rate)
          .add(param::text("trace", "", "probability trace (DESIGN.md) whose ranks and draft probabilities replace the process or the hit curve"), &Params::trace)
          .add(param::integers("batch", "1", 1, 1024, "requests",
                      "requests decoded together, e.g. 1,2,4-32 (> 1: SpecPipe with the requests taking turns at "
                      "stage 0 and SpecPipe-DB, dynamic batching; baselines in micro-batches)"), &Params::batch)
          .add(param::choice("verify", "greedy", {"greedy", "relaxed", "top-p"},
                    "greedy (lossless, top-1 of the target), relaxed (the level's best candidate, no stall) or top-p "
                    "(a candidate in the target's top-p set); paper 002 §3.4"), &Params::verify)
          .add(param::real("top-p", 0.9, 1e-9, 1 - 1e-9, "", "p of --verify top-p"), &Params::top_p)
          .add(param::choice("confidence", "auto", {"auto", "calibrated", "constant"},
                    "draft confidence behind the hit curve (--acceptance hit-curve; giving it chooses the curve under "
                    "auto): calibrated (each context draws its top-1 probability, mean H(1), so the beam widens where "
                    "the draft is unsure; auto) or constant (every node carries the curve's mean rank probabilities); "
                    "a process band carries its own"), &Params::confidence)
          .add(param::boolean("baselines", true,
                     "run the baselines (PP, the system's baseline_stacks such as PP-vLLM, PP+SpecInfer tree, PP+EAGLE-3)"), &Params::baselines)
          .add(param::choice("engine", "roofline", {"roofline", "sim", "sim-clocked"}, "latency engine for every device"), &Params::engine),
      ColumnBindings<Row>()
          .add("method", &Row::method)
          .add("batch", &Row::batch)
          .add("w", &Row::w)
          .add("k", &Row::k)
          .add("tree", &Row::tree)
          .add("tbt_mean_s", &Row::tbt_mean_s)
          .add("tbt_low_s", &Row::tbt_low_s)
          .add("tbt_high_s", &Row::tbt_high_s)
          .add("tbt_p50_s", &Row::tbt_p50_s)
          .add("tbt_p90_s", &Row::tbt_p90_s)
          .add("tbt_p99_s", &Row::tbt_p99_s)
          .add("tokens_per_s", &Row::tokens_per_s)
          .add("tokens_per_s_total", &Row::tokens_per_s_total)
          .add("hit_rate", &Row::hit_rate)
          .add("substituted_rate", &Row::substituted_rate)
          .add("flush_rate", &Row::flush_rate)
          .add("step_s", &Row::step_s)
          .add("e_tbt_eq1_s", &Row::e_tbt_eq1_s)
          .add("e_tbt_eq2_s", &Row::e_tbt_eq2_s)
          .add("e_tbt_mechanism_s", &Row::e_tbt_mechanism_s)
          .add("link_bytes_per_step", &Row::link_bytes_per_step)
          .add("max_hop_bytes", &Row::max_hop_bytes)
          .add("stage_util_min", &Row::stage_util_min)
          .add("stage_util_max", &Row::stage_util_max)
          .add("draft_util", &Row::draft_util)
          .add("speedup_vs_pp", &Row::speedup_vs_pp)
          .add("acceptance", &Row::acceptance)
          .add("best", std::function<ScenarioCell(const Row&)>(
                           [](const Row& r) { return ScenarioCell(std::string(r.best ? "*" : "")); })),
      run_specpipe_entry);
  return typed;
}

namespace {
// Registers the scenario when the program starts (the registry lists it before any call).
const auto& specpipe_registration = scenario();
}  // namespace

}  // namespace search::specpipe::entry
