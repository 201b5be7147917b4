// specdse specpipe: paper 002's SpecPipe on a system of devices and links. For each tree width w
// and candidate count k, N tokens are decoded on the system timeline (tree levels through the
// pipeline, pruning, flushes on misses; hits drawn from the hit model with a seeded RNG) and the
// time between tokens (TBT) is reported with paper 002's analytic E(T) beside it; the best (w, k)
// is marked, plain pipeline parallelism and PP with SpecInfer's static tree run on the same
// system as baselines. --trace-out writes the best run's timeline (Chrome trace-event JSON).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <variant>

#include "experiments/cli/cli_common.hpp"
#include "search/acceptance/probability_trace.hpp"
#include "search/scenarios/scenario.hpp"
#include "search/scenarios/specpipe/hit_curve.hpp"
#include "search/scenarios/specpipe/specpipe_scenario.hpp"

namespace experiments {
namespace {

namespace sp = search::specpipe;

struct SpecPipeArgs {
  std::string system, model, draft, engine, format, trace, w = "64", k = "16", hit_points, hit_curve;
  std::string batch = "1", verify = "greedy", rank_trace, confidence = "calibrated";
  double hit_rate = std::nan("");  // NaN (not given): from the hit curve
  double top_p = 0.9;
  long long tokens = 2000, context = 1024;
  std::uint64_t seed = 1;
  double prune_ms = 5.0;
  bool baselines = true;
};

Table result_table() {
  return Table({"method", "batch", "w", "k", "tree", "tbt_mean_s", "tbt_p50_s", "tbt_p90_s", "tbt_p99_s", "tokens_per_s",
                "tokens_per_s_total", "hit_rate", "substituted_rate", "flush_rate", "step_s", "e_tbt_eq1_s", "e_tbt_eq2_s",
                "e_tbt_mechanism_s", "link_bytes_per_step", "max_hop_bytes", "stage_util_min", "stage_util_max",
                "draft_util", "speedup_vs_pp", "best"});
}

void add_result(Table& t, const sp::ScenarioResult& r, double pp_mean, bool best) {
  const auto& m = r.timed;
  double umin = 1, umax = 0;
  for (double u : m.stage_utilisation) umin = std::min(umin, u), umax = std::max(umax, u);
  const bool eq = r.method.rfind("specpipe", 0) == 0 && r.batch == 1;  // E(T) is a single-request formula
  const double substituted = r.plan.checks ? double(r.plan.substituted) / double(r.plan.checks) : 0.0;
  t.add_row({r.method, integer(r.batch), integer(r.w), integer(r.k), text(r.tree), num(m.tbt.mean_s), num(m.tbt.p50_s),
             num(m.tbt.p90_s), num(m.tbt.p99_s), num(m.tbt.tokens_per_s), num(m.tokens_per_s_total), num(r.hit_rate),
             num(substituted), num(r.flush_rate), num(m.mean_step_s), eq ? num(r.e_eq1_s) : text(""),
             eq ? num(r.e_eq2_s) : text(""), eq ? num(r.e_mech_s) : text(""), num(m.link_bytes_per_step),
             num(m.max_hop_bytes), num(umin), num(umax), num(m.draft_utilisation),
             num(pp_mean > 0 && m.tbt.mean_s > 0 ? pp_mean / m.tbt.mean_s : 0), best ? "*" : ""});
}

struct SpecPipeOutput {
  Table table = result_table();
  std::string footer;
  std::optional<sp::ScenarioResult> best;
};

SpecPipeOutput compute_specpipe(const SpecPipeArgs& a, const models::ConfigRegistry& reg) {
  const auto widths = parse_int_list("--w", a.w, 1);
  const auto cands = parse_int_list("--k", a.k, 1);
  const auto batches = parse_int_list("--batch", a.batch, 1);
  if (batches.back() > 1024) throw models::InputError(fmt::format("--batch: {} (at most 1024 requests)", batches.back()));
  if (a.tokens < 1) throw models::InputError(fmt::format("--tokens: {} (must be >= 1)", a.tokens));
  const bool fixed_rate = !std::isnan(a.hit_rate);
  if (fixed_rate && !(a.hit_rate >= 0 && a.hit_rate <= 1))
    throw models::InputError(fmt::format("--hit-rate: {} is outside [0, 1]", a.hit_rate));
  if (fixed_rate && !a.rank_trace.empty()) throw models::InputError("--hit-rate and --trace: give one source of hits");
  const sp::Verification verification = sp::parse_verification(a.verify);
  const sp::DraftConfidence confidence = sp::parse_draft_confidence(a.confidence);
  if (verification == sp::Verification::top_p && !(a.top_p > 0 && a.top_p < 1))
    throw models::InputError(fmt::format("--top-p: {} (must be in (0, 1))", a.top_p));
  sp::TimingSetup setup = sp::make_setup(reg, a.system, a.model, a.draft, a.engine, a.context, a.prune_ms * 1e-3);
  setup.task_names = !a.trace.empty();  // --trace-out writes the best run's named tasks
  if (!setup.draft) throw models::InputError("--draft: SpecPipe needs a draft model on the system's draft device");
  // Memory: the widest level and the largest batch decide; an infeasible placement is not timed.
  sp::check_memory(setup, int(widths.back()), int(batches.back()));
  const sp::StageTimer timer(setup);

  const sp::HitFit fit = sp::fit_hit_curves(sp::load_hit_points(a.hit_points.empty() ? sp::default_hit_points(reg) : a.hit_points),
                                            "hit curve fit");
  const sp::HitCurve& curve = fit.curve(a.hit_curve.empty() ? setup.draft->name : a.hit_curve);
  // Candidates the rank model lists: the largest k asked for and the static tree's branching.
  const int max_k = int(std::max<long long>(cands.back(), 8));
  const sp::RankModel ranks =
      !a.rank_trace.empty()
          ? sp::RankModel::from_probability_trace(search::read_probability_trace(a.rank_trace), int(cands.back()))
      : fixed_rate ? sp::RankModel::fixed(a.hit_rate, curve, max_k)
                   : sp::RankModel::from_curve(curve, max_k, confidence);

  SpecPipeOutput out;
  Table& t = out.table;
  std::string summary, eagle_note;
  for (long long batch : batches) {
    const int b = int(batch);
    std::vector<sp::ScenarioResult> runs;
    for (long long w : widths)
      for (long long k : cands) {
        sp::SpecPipeParams p;
        p.stages = timer.stages();
        p.width = int(w);
        p.candidates = int(k);
        p.tokens = a.tokens;
        p.seed = a.seed;
        p.verification = verification;
        p.top_p = a.top_p;
        runs.push_back(sp::run_specpipe(setup, timer, p, ranks, b));
        if (b > 1) runs.push_back(sp::run_specpipe_db(setup, timer, p, b, ranks));
      }
    std::size_t best = 0;
    for (std::size_t i = 1; i < runs.size(); ++i)
      if (runs[i].timed.tbt.mean_s < runs[best].timed.tbt.mean_s) best = i;
    std::vector<sp::ScenarioResult> base;
    if (a.baselines) {
      base.push_back(sp::run_plain_pp(setup, timer, a.tokens, b));
      for (auto& r : sp::run_stack_baselines(setup, a.tokens, b)) base.push_back(std::move(r));
      if (b == 1)
        for (auto& r : sp::run_tp_stack_baselines(setup)) base.push_back(std::move(r));
      // The static tree needs ranks up to its widest branching (a trace may list fewer).
      const auto& branching = sp::specinfer_branching();
      if (ranks.max_k() >= *std::max_element(branching.begin(), branching.end()))
        base.push_back(sp::run_static_tree(setup, timer, a.tokens, ranks, a.seed, b));
      if (auto e = sp::run_eagle_baseline(reg, setup, a.tokens, a.seed, b, &eagle_note)) base.push_back(std::move(*e));
    }
    const double pp_mean = base.empty() ? 0.0 : base.front().timed.tbt.mean_s;
    for (std::size_t i = 0; i < runs.size(); ++i) add_result(t, runs[i], pp_mean, i == best);
    for (const auto& r : base) add_result(t, r, pp_mean, false);
    const auto& br = runs[best];
    std::string vs;
    for (const auto& r : base)
      vs += fmt::format("{}{} {:.2f} ms{}", vs.empty() ? "" : ", ", r.method, r.timed.tbt.mean_s * 1e3,
                        r.tree.empty() ? "" : " (" + r.tree + ")");
    summary += fmt::format("{}batch {}: best w={} k={}: TBT {:.2f} ms{}, {:.1f} tokens/s in all, hit rate {:.3f}{}",
                           summary.empty() ? "" : "; ", b, br.w, br.k, br.timed.tbt.mean_s * 1e3,
                           b == 1 ? fmt::format(" (E(T) eq.2 {:.2f} ms)", br.e_eq2_s * 1e3) : "",
                           br.timed.tokens_per_s_total, br.hit_rate, vs.empty() ? "" : "; " + vs);
    if (!out.best) out.best = std::move(runs[best]);
  }
  out.footer = fmt::format(
      "{}; hits from {}; verification {}{}; hit curve '{}' H(k)=1/(1+exp(-({:.3f}+{:.3f} ln k))), fit R^2={:.4f} over {} "
      "points; {} tokens, seed {}, engine {}{}",
      summary, ranks.describe(), sp::verification_name(verification),
      verification == sp::Verification::top_p ? fmt::format(" (p {}, nucleus {} tokens)", a.top_p, ranks.nucleus_size(a.top_p)) : "",
      curve.name, curve.a, curve.b, fit.r2, fit.n, a.tokens, a.seed, a.engine,
      eagle_note.empty() ? "" : "; EAGLE-3 baseline skipped: " + eagle_note);
  t.set_footer(out.footer);
  return out;
}

int run_specpipe(const SpecPipeArgs& a, const GlobalOptions& g) {
  const SpecPipeOutput out = compute_specpipe(a, registry(g));
  print_table(out.table, a.format);
  if (!a.trace.empty()) {
    std::ostringstream json;
    sim::write_chrome_trace(out.best->timed.graph, out.best->timed.run, json);
    write_file_atomic(a.trace, json.str());
  }
  return 0;
}

// `specdse scenario specpipe --model M [--param KEY=VALUE ..]`: the rows of `specpipe`. Registered
// here, not under search/scenarios/, because the scenario runs on the timeline (sim) and the search
// library does not link sim (see specpipe_timeline.hpp).
search::ScenarioResult run_specpipe_scenario_entry(const search::ScenarioContext& ctx) {
  ctx.require(ctx.workload != nullptr, "--model");
  ctx.require(ctx.configs != nullptr, "the config registry");
  const auto& p = ctx.params;
  SpecPipeArgs a;
  a.system = p.at("system");
  a.model = ctx.workload->target.name;
  a.draft = p.at("draft");
  a.engine = p.at("engine");
  a.w = p.at("w");
  a.k = p.at("k");
  a.tokens = ctx.int_param("tokens");
  a.seed = std::uint64_t(ctx.int_param("seed"));
  a.prune_ms = double(ctx.int_param("prune-us")) * 1e-3;
  a.batch = p.at("batch");
  a.verify = p.at("verify");
  a.confidence = p.at("confidence");
  if (!ctx.contexts.empty()) a.context = ctx.contexts.front();
  const SpecPipeOutput out = compute_specpipe(a, *ctx.configs);
  search::ScenarioResult r;
  r.columns = out.table.columns();
  for (const auto& row : out.table.rows()) {
    std::vector<search::ScenarioCell> cells;
    for (const auto& c : row) {
      if (const auto* n = std::get_if<Number>(&c)) cells.emplace_back(n->value);
      else if (const auto* i = std::get_if<std::int64_t>(&c)) cells.emplace_back(*i);
      else cells.emplace_back(std::get<std::string>(c));
    }
    r.rows.push_back(std::move(cells));
  }
  r.footer = out.footer;
  return r;
}

const search::ScenarioRegistration specpipe_scenario_registered(
    {"specpipe",
     "SpecPipe (paper 002): tree levels through a pipeline on a system's timeline; TBT per (w, k) vs PP baselines",
     {{"system", "specpipe-8x3090-pcie", "system config"},
      {"draft", "llama-3.2-1b", "draft model on the system's draft device"},
      {"w", "64", "tree widths (list)"},
      {"k", "16", "candidates per bottom node (list)"},
      {"tokens", "2000", "tokens per run"},
      {"seed", "1", "hit-draw seed"},
      {"prune-us", "5000", "pruning per step and stage in microseconds (paper 002: ~5 ms)"},
      {"batch", "1", "requests decoded together (list; > 1: SpecPipe-DB and multi-batch baselines)"},
      {"verify", "greedy", "verification: greedy (lossless), relaxed or top-p (paper 002 §3.4)"},
      {"confidence", "calibrated", "draft confidence per context: calibrated (drawn per node) or constant (the curve's mean)"},
      {"engine", "roofline", "latency engine for every device"}},
     run_specpipe_scenario_entry});

const RegisterCommand reg{
    "specpipe",
    "SpecPipe (paper 002): TBT per tree width w and candidates k on a pipeline system, best marked, PP baselines",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<SpecPipeArgs>();
      sub.add_option("--system", a->system, "System config name (configs/systems) or path")->required();
      sub.add_option("--model", a->model, "Target model (configs/models)")->required();
      sub.add_option("--draft", a->draft, "Draft model on the system's draft device")->required();
      sub.add_option("--w", a->w, "Tree widths w (nodes per level), e.g. 1,2,4,8-16")->default_val("64");
      sub.add_option("--k", a->k, "Candidates per bottom node k, e.g. 2,4,16")->default_val("16");
      sub.add_option("--tokens", a->tokens, "Tokens decoded per run (after the first)")->default_val(2000);
      sub.add_option("--seed", a->seed, "Seed of the hit draws")->default_val(1);
      sub.add_option("--context", a->context, "Context length L (held fixed)")->default_val(1024);
      sub.add_option("--prune-ms", a->prune_ms,
                     "Pruning cost per step and stage (paper 002 §4.2 measured ~5 ms on its two-server testbed)")
          ->default_val(5.0);
      sub.add_option("--hit-points", a->hit_points,
                     "Hit points CSV (curve,draft,target,k,hit); default configs/acceptance/specpipe_hit_points.csv");
      sub.add_option("--hit-curve", a->hit_curve, "Curve in the hit points to use (default: the draft's name)");
      sub.add_option("--hit-rate", a->hit_rate, "Fixed hit rate in [0, 1] instead of the hit curve");
      sub.add_option("--trace", a->rank_trace,
                     "Probability trace (DESIGN.md) whose ranks and draft probabilities replace the hit curve");
      sub.add_option("--batch", a->batch,
                     "Requests decoded together, e.g. 1,2,4-32 (> 1: SpecPipe with the requests taking turns at "
                     "stage 0 and SpecPipe-DB, dynamic batching; baselines in micro-batches)")
          ->default_val("1");
      sub.add_option("--verify", a->verify,
                     "greedy (lossless, top-1 of the target), relaxed (the level's best candidate, no stall) or top-p "
                     "(a candidate in the target's top-p set); paper 002 §3.4")
          ->default_val("greedy");
      sub.add_option("--top-p", a->top_p, "p of --verify top-p")->default_val(0.9);
      sub.add_option("--confidence", a->confidence,
                     "Draft confidence behind the hit curve: calibrated (each context draws its top-1 probability, "
                     "mean H(1), so the beam widens where the draft is unsure) or constant (every node carries the "
                     "curve's mean rank probabilities)")
          ->default_val("calibrated");
      sub.add_flag("!--no-baselines", a->baselines,
                   "Skip the baselines (PP, the system's baseline_stacks such as PP-vLLM, PP+SpecInfer tree, PP+EAGLE-3)");
      sub.add_option("--trace-out", a->trace, "Write the best run's timeline as Chrome trace-event JSON");
      add_engine_option(sub, a->engine);
      add_format_option(sub, a->format);
      return [a, &g] { return run_specpipe(*a, g); };
    },
    36};

}  // namespace
}  // namespace experiments
