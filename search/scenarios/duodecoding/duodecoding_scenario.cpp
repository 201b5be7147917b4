// The DuoDecoding scenario in the scenario registry (search/scenarios/scenario.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "search/acceptance/acceptance_statistics.hpp"
#include "models/config_error.hpp"
#include "search/scenarios/duodecoding/duo_acceptance.hpp"
#include "search/scenarios/duodecoding/duo_scenario.hpp"
#include "search/scenarios/duodecoding/duodecoding_scenario.hpp"
#include "search/scenarios/scenario.hpp"

namespace search::duodecoding {
namespace {

// The acceptance without --acceptance, --alpha or --trace: the band fitted to paper 003 Table 4.
constexpr const char* kDefaultBand = "duodecoding-paper003";

// The views of `show` (`specdse duo --show VIEW`, `specdse scenario duodecoding --param show=VIEW`).
const std::vector<std::string>& duo_views() {
  static const std::vector<std::string> v{"summary", "sequences", "sweep", "ttft", "iterations"};
  return v;
}

// The acceptance the runs draw from: a fixed per-token alpha (independent, calibrated generator),
// a trace file, or every member of a process band (the central one first).
struct DuoAcceptance {
  std::vector<PositionStream> streams;
  std::string description;  // the footer's words
  std::string column;       // what it was fitted to, in every summary row (CSVs carry no footer)
};

DuoAcceptance duo_acceptance(const ScenarioContext& ctx, const Params& p, std::uint64_t seed) {
  const bool alpha = p.alpha.has_value(), trace = !p.trace.empty(), band_given = !p.acceptance.empty();
  if (int(alpha) + int(trace) + int(band_given) > 1)
    throw models::InputError("duodecoding: give at most one acceptance source: --acceptance BAND, --alpha A or --trace FILE");
  DuoAcceptance a;
  if (alpha) {
    a.streams.push_back(PositionStream::calibrated(*p.alpha, kGeneratorTopK, seed));
    a.description = a.column = fmt::format("independent acceptance alpha {}", *p.alpha);
    return a;
  }
  if (trace) {
    a.streams.push_back(acceptance_stream_from_file(p.trace));
    a.description = a.column = a.streams.front().source();
    return a;
  }
  if (!band_given) {
    // The default band was fitted to one pair's statistics (paper 003 Table 4): another pair's
    // acceptance is not borrowed from it silently (plan refuses the same case).
    const auto testbed = paper003_testbed();
    const std::string target = ctx.configs->model(testbed.model).name, draft = ctx.configs->model(testbed.draft).name;
    std::vector<std::string> others;
    if (ctx.workload->target.name != target) others.push_back("target " + ctx.workload->target.name);
    for (const auto& [key, name] : {std::pair<const char*, const std::string&>{"draft", p.draft}, {"sps-draft", p.sps_draft}})
      if (!name.empty() && ctx.configs->model(name).name != draft)
        others.push_back(fmt::format("{} {}", key, ctx.configs->model(name).name));
    if (!others.empty())
      throw models::InputError(fmt::format(
          "duodecoding: the default acceptance ({}) was measured for {} drafting for {}, not for {}; give --alpha A "
          "(independent per-token acceptance), --acceptance BAND (specdse fit --statistics FILE --out BAND) or "
          "--trace FILE for this pair",
          kDefaultBand, draft, target, fmt::join(others, ", ")));
  }
  const ProcessBand band =
      resolve_process_band(band_given ? p.acceptance : std::string(kDefaultBand), ctx.configs->dir(), "--acceptance");
  a.streams.push_back(PositionStream::from_process(AcceptanceProcess(band.central().params, band.name), kGeneratorTopK, seed));
  for (const auto* m : band.others())
    a.streams.push_back(PositionStream::from_process(AcceptanceProcess(m->params, band.name), kGeneratorTopK, seed));
  a.description = fmt::format("acceptance process {} ({} fits consistent with {}{}; central: {})", band.name,
                              band.members.size(), band.fitted_to,
                              band.borrowed.empty() ? "" : fmt::format(", not fitted: {}", fmt::join(band.borrowed, "; ")),
                              band.central().params.describe());
  a.column = band.column();
  return a;
}

// Tokens each point of the boundary scan generates at most: 48 runs of a long request would cost
// 48 times the request itself, and the crossing is a property of the system and the acceptance,
// settled within a few thousand tokens.
constexpr long long kBoundaryScanTokens = 4096;

// Decision boundaries: the independent per-token acceptances at which DuoDecoding's tokens/s
// crosses SpS's on this system, from a scan in steps of 0.02 (the ratio is not monotone: at very
// low acceptance both are AD-like, and SpS's window changes with alpha), each crossing placed by
// linear interpolation.
std::string decision_boundary(DuoRequest q, std::uint64_t seed) {
  const std::string capped =
      q.tokens > kBoundaryScanTokens ? fmt::format(" (scanned over {} tokens per point)", kBoundaryScanTokens) : "";
  q.tokens = std::min(q.tokens, kBoundaryScanTokens);
  auto duo_over_sps = [&](double alpha) {
    q.stream = PositionStream::calibrated(alpha, kGeneratorTopK, seed);
    const DuoReport d = run_duo_scenario(q);
    return d.duo.tokens_per_s / d.sps.tokens_per_s - 1;
  };
  std::string crossings;
  double prev_a = 0.05, prev = duo_over_sps(prev_a);
  for (int i = 1; i <= 47; ++i) {
    const double a = 0.05 + 0.02 * i, v = duo_over_sps(a);
    if ((v > 0) != (prev > 0))
      crossings += fmt::format("{}{} at alpha {:.3f}", crossings.empty() ? "" : ", ",
                               v > 0 ? "overtakes SpS" : "falls behind SpS", prev_a + (a - prev_a) * prev / (prev - v));
    prev_a = a, prev = v;
  }
  return (crossings.empty() ? fmt::format("at an independent acceptance of 0.05-0.99 DuoDecoding is {} SpS throughout",
                                          prev > 0 ? "ahead of" : "behind")
                            : fmt::format("at an independent acceptance of 0.05-0.99 DuoDecoding {}", crossings)) +
         capped;
}

// `specdse duo` / `specdse scenario duodecoding`: one run of AD, SpS and DuoDecoding over the same
// acceptance stream on the system's timeline, shown as `show` says.
TypedResult<Row> run_duo_scenario_entry(const ScenarioContext& ctx, const Params& p) {
  ctx.require(ctx.workload != nullptr, "--model");
  ctx.require(ctx.configs != nullptr, "the config registry");
  const std::string& show = p.show;
  // Settings another view or rule reads would be ignored by this one.
  if (ctx.was_given("sweep-range") && show != "sweep")
    throw models::InputError(fmt::format("--sweep-range sets --show sweep's budgets; --show {} shows none", show));
  // The SpS baseline is a row of summary (its window too) and of ttft (its draft's prefill only).
  if (ctx.was_given("sps-gamma") && show != "summary")
    throw models::InputError(fmt::format("--sps-gamma sets the SpS baseline's window, a row of --show summary; "
                                         "--show {} has no SpS decode", show));
  for (const char* sps : {"sps-draft", "sps-draft-device"})
    if (ctx.was_given(sps) && show != "summary" && show != "ttft")
      throw models::InputError(fmt::format("--{} sets the SpS baseline, a row of --show summary and ttft; --show {} "
                                           "has no SpS row", sps, show));
  if (ctx.was_given("max-sequences") && p.sequences != "dynamic")
    throw models::InputError(fmt::format("--max-sequences caps the dynamic rule; --sequences {} has no cap",
                                         p.sequences));
  DuoNames names = paper003_testbed(p.engine);
  names.system = p.system;
  names.model = ctx.workload->target.name;  // --model (the testbed's is llama-2-7b)
  names.draft = p.draft;
  names.draft_device = p.draft_device;
  names.sps_draft = p.sps_draft;
  names.sps_draft_device = p.sps_draft_device;
  names.tokens = p.tokens;
  names.prompt = int(p.prompt);
  const auto seed = std::uint64_t(p.seed);
  // The acceptance is read before the request is made: making it may run SystemC (GPU streams),
  // and the YAML reader's internal exceptions after a SystemC run trip ASan's known false positive
  // (.ci/run). Reading first also reports a bad band before any costing.
  const DuoAcceptance acceptance = duo_acceptance(ctx, p, seed);
  DuoRequest q = make_duo_request(*ctx.configs, names);
  q.budget = parse_budget(p.budget);
  q.policy = parse_sequences(p.sequences, int(p.max_sequences));
  q.sps_gamma = int(p.sps_gamma);
  // The summary runs every member of a band (the _low / _high columns); the other views the
  // central one.
  std::vector<DuoReport> reports;
  for (std::size_t i = 0; i < (show == "summary" ? acceptance.streams.size() : 1); ++i) {
    q.stream = acceptance.streams[i];
    reports.push_back(run_duo_scenario(q));
  }
  q.stream = acceptance.streams.front();
  const auto report = std::make_shared<const DuoReport>(std::move(reports.front()));
  const DuoReport& r = *report;
  const auto& sys = q.placement.system;
  const std::string where = fmt::format(
      "target on {}, draft on {}, SpS draft on {}", sys.devices[std::size_t(q.placement.target_device)].name,
      sys.devices[std::size_t(q.placement.draft_device)].name, sys.devices[std::size_t(sps_placement(q).draft_device)].name);
  std::string footer = fmt::format(
      "cost coefficient {:.3f} (target forward {:.4g} s / draft pass {:.4g} s) -> hardware-aware budget {}; budget used {}; "
      "SpS gamma {}; {}; {}{}",
      r.cost_coefficient, q.costs.target_forward_s(1), q.costs.draft_pass_s(), r.hardware_budget, r.budget, r.sps_gamma,
      where, acceptance.description, r.duo.plan.source_exhausted ? " (trace ended the run)" : "");
  if (!q.sps_note.empty()) footer += "; " + q.sps_note;
  TypedResult<Row> typed;
  ScenarioResult& out = typed.table;
  auto method_of = [](const DuoReport& d, int k) -> const ScenarioRun& { return k == 0 ? d.ad : k == 1 ? d.sps : d.duo; };
  auto trace_of = [&](const ScenarioRun& run) {
    return sim::chrome_trace_writer({report, &run.graph}, {report, &run.run});
  };
  if (show == "summary") {
    out.narrow_columns = {"method", "budget", "sequences", "tokens_per_s", "speedup_vs_ad", "speedup_vs_sps",
                          "tokens_per_iteration", "iteration_s", "ttft_s"};
    const double ttft[3] = {r.ttft.ad_s, r.ttft.sps_s, r.ttft.duo_parallel_s};
    const std::string sequences[3] = {"0", "static:1", p.sequences};
    for (int k = 0; k < 3; ++k) {
      const ScenarioRun& run = method_of(r, k);
      double lo = run.tokens_per_s, hi = lo, vs_lo = run.tokens_per_s / r.sps.tokens_per_s, vs_hi = vs_lo;
      for (std::size_t i = 1; i < reports.size(); ++i) {
        const double v = method_of(reports[i], k).tokens_per_s, vs = v / reports[i].sps.tokens_per_s;
        lo = std::min(lo, v), hi = std::max(hi, v), vs_lo = std::min(vs_lo, vs), vs_hi = std::max(vs_hi, vs);
      }
      Row row;
      row.method = to_string(run.plan.method);
      row.budget = run.plan.budget;
      row.sequences = sequences[k];
      row.tokens = run.plan.tokens;
      row.time_s = run.seconds;
      row.tokens_per_s = run.tokens_per_s;
      row.tokens_per_s_low = lo;
      row.tokens_per_s_high = hi;
      row.speedup_vs_ad = run.tokens_per_s / r.ad.tokens_per_s;
      row.speedup_vs_sps = run.tokens_per_s / r.sps.tokens_per_s;
      row.speedup_vs_sps_low = vs_lo;
      row.speedup_vs_sps_high = vs_hi;
      row.target_idle_fraction = run.target_idle_fraction;
      row.draft_idle_fraction = run.draft_idle_fraction;
      row.tokens_per_iteration = run.tokens_per_iteration;
      row.processed_tokens_per_iteration = run.processed_per_iteration;
      row.iteration_s = run.mean_iteration_s;
      row.target_forward_s = run.mean_target_s;
      row.draft_s = run.mean_draft_s;
      row.comm_s = run.mean_comm_s;
      row.ttft_s = ttft[k];
      row.ttft_vs_ad = ttft[k] / r.ttft.ad_s;
      row.ttft_vs_sps = ttft[k] / r.ttft.sps_s;
      row.acceptance = acceptance.column;
      if (k == 1) {
        row.draft_device = sys.devices[std::size_t(sps_placement(q).draft_device)].name;
        row.draft_model = q.sps_draft;
      } else if (k == 2) {
        row.draft_device = sys.devices[std::size_t(q.placement.draft_device)].name;
        row.draft_model = names.draft;
      }
      typed.rows.push_back(std::move(row));
      if (ctx.want_trace) out.row_traces.push_back(trace_of(run));
    }
    footer += "; " + (p.boundary ? decision_boundary(q, seed) : std::string("decision boundary not scanned"));
  } else if (show == "sequences") {
    out.columns = {"kind", "sequences", "top1_accepted", "iterations", "fraction", "paper_fraction"};
    long long total = 0;
    for (const auto& [n, c] : r.duo.plan.sequence_counts) total += c;
    for (const auto& [n, c] : r.duo.plan.sequence_counts)
      out.rows.push_back({"count", std::int64_t(n), "", std::int64_t(c), double(c) / double(std::max(1LL, total)), ""});
    const auto& m = r.duo.plan.confusion;
    // Paper 003 Table 4 (configs/reference/paper003_table4.yaml), for comparison only.
    const auto paper = paper003_table4(ctx.configs->dir()).confusion;
    const long long verified = m[0][0] + m[0][1] + m[1][0] + m[1][1];
    for (int acc : {1, 0})
      for (int many : {0, 1})
        out.rows.push_back({"confusion", many ? ">1" : "1", acc ? "yes" : "no", std::int64_t(m[acc][many]),
                            double(m[acc][many]) / double(std::max(1LL, verified)), paper[acc][many]});
    footer += "; confusion over the iterations whose draft reached verification (paper 003 Table 4)";
  } else if (show == "sweep") {
    const int range = int(p.sweep_range);
    std::vector<int> budgets;
    for (int b = std::max(1, r.hardware_budget - range); b <= r.hardware_budget + range; ++b) budgets.push_back(b);
    const auto sweep = budget_sweep(q, budgets);
    const int best = best_budget(sweep);
    double hw_rate = 0;
    for (const auto& [b, run] : sweep)
      if (b == r.hardware_budget) hw_rate = run.tokens_per_s;
    out.columns = {"budget", "offset", "tokens_per_s", "relative_to_hardware_budget", "target_idle_fraction",
                   "draft_idle_fraction", "tokens_per_iteration", "iteration_s", "best"};
    out.narrow_columns = {"budget", "offset", "tokens_per_s", "relative_to_hardware_budget", "target_idle_fraction",
                          "tokens_per_iteration", "best"};
    for (const auto& [b, run] : sweep)
      out.rows.push_back({std::int64_t(b), std::int64_t(b - r.hardware_budget), run.tokens_per_s, run.tokens_per_s / hw_rate,
                          run.target_idle_fraction, run.draft_idle_fraction, run.tokens_per_iteration,
                          run.mean_iteration_s, b == best ? "yes" : ""});
    footer += fmt::format("; best budget {} (one sequence, as paper 003 Table 3)", best);
  } else if (show == "ttft") {
    out.columns = {"method", "ttft_s", "ttft_vs_ad", "ttft_vs_sps"};
    auto row = [&](const std::string& method, double s) {
      out.rows.push_back({method, s, s / r.ttft.ad_s, s / r.ttft.sps_s});
    };
    row("AD", r.ttft.ad_s);
    row("SpS", r.ttft.sps_s);
    row("DuoDecoding (sequential layout)", r.ttft.duo_sequential_s);
    row("DuoDecoding (parallel layout)", r.ttft.duo_parallel_s);
    footer += fmt::format("; prompt {} tokens", names.prompt);
  } else {  // iterations
    out.columns = {"iteration", "x", "draft_passes", "sequences", "tokens_appended", "end_s", "iteration_s",
                   "target_forward_s", "draft_s", "comm_s"};
    for (std::size_t i = 0; i < r.duo.timing.size(); ++i) {
      const auto& it = r.duo.plan.iterations[i];
      const auto& ti = r.duo.timing[i];
      out.rows.push_back({std::int64_t(i), std::int64_t(it.x), std::int64_t(it.draft_passes), std::int64_t(it.sequences),
                          std::int64_t(it.gained), ti.end_s, ti.iteration_s, ti.target_s, ti.draft_s, ti.comm_s});
    }
  }
  out.footer = footer;
  // The DuoDecoding run's timeline (in the summary, each method's row has its own).
  out.write_trace = trace_of(r.duo);
  return typed;
}

}  // namespace

const TypedScenario<Params, Row>& scenario() {
  static const TypedScenario<Params, Row> typed(
      {"duodecoding",
     "DuoDecoding (paper 003): CPU draft in parallel with the GPU target on a system's timeline, vs AD and SpS",
       {},
       nullptr,
     "duo",
     {"model"},
     {"model"},
     ""},
      ParamBindings<Params>()
          .add(param::system(paper003_testbed().system), &Params::system)
          .add(param::text("draft", paper003_testbed().draft, "draft model (MODEL@FORMAT for quantised weights, e.g. llama-68m@q5_k_m)"), &Params::draft)
          .add(param::draft_device(), &Params::draft_device)
          .add(param::text("sps-draft", "",
                           "draft model of the SpS baseline (default: draft, in the target device's precision when it "
                           "drafts beside the target)"),
               &Params::sps_draft)
          .add(param::text("sps-draft-device", "",
                           "device on which the SpS baseline drafts (default: the target's, as conventional SpS and "
                           "paper 003's baseline run; the draft device gives SpS with DuoDecoding's own draft)"),
               &Params::sps_draft_device)
          .add(param::acceptance_band("", fmt::format(" (default {}, fitted to paper 003 Table 4's check confusion)", kDefaultBand)), &Params::acceptance)
          .add(param::optional_real("alpha", 1e-6, 1 - 1e-6, "",
                           "a fixed per-token acceptance (independent, calibrated generator) instead of the process"), &Params::alpha)
          .add(param::text("trace", "", "acceptance trace instead of the process: a probability trace or a chain trace (DESIGN.md)"), &Params::trace)
          .add(param::text("budget", "auto", "draft passes per iteration or auto (hardware-aware)"), &Params::budget)
          .add(param::text("sequences", "dynamic", "static:N or dynamic (paper 003 §3.2)"), &Params::sequences)
          .add(param::integer("max-sequences", 4, 1, 64, "sequences", "cap of the dynamic rule"), &Params::max_sequences)
          .add(param::integer("sps-gamma", 0, 0, 4096, "tokens", "SpS window (0: paper 001's best for the acceptance)"), &Params::sps_gamma)
          // A run is a few timeline tasks per token: 10^6 tokens is about a minute, the bound.
          .add(param::integer("tokens", 1024, 1, 1e6, "tokens", "tokens to generate"), &Params::tokens)
          .add(param::integer("prompt", 256, 1, 1e6, "tokens", "prompt tokens (TTFT; decode steps start at this context and grow)"), &Params::prompt)
          .add(param::seed("the generator"), &Params::seed)
          .add(param::boolean("boundary", true,
                     "summary: scan independent per-token acceptances 0.05-0.99 for where DuoDecoding crosses SpS (the footer)"), &Params::boundary)
          .add(param::choice("show", "summary", duo_views(),
                    "summary (AD, SpS, DuoDecoding), sequences (draft-sequence counts and the check confusion), sweep "
                    "(budgets around the hardware-aware one), ttft (time to first token per layout) or iterations"), &Params::show)
          .add(param::integer("sweep-range", 4, 0, 64, "budgets", "show sweep: budgets hardware-aware +- this"), &Params::sweep_range)
          .add(param::choice("engine", "roofline", {"roofline", "sim", "sim-clocked"}, "latency engine for every device"), &Params::engine),
      ColumnBindings<Row>()
          .add("method", &Row::method)
          .add("budget", &Row::budget)
          .add("sequences", &Row::sequences)
          .add("tokens", &Row::tokens)
          .add("time_s", &Row::time_s)
          .add("tokens_per_s", &Row::tokens_per_s)
          .add("tokens_per_s_low", &Row::tokens_per_s_low)
          .add("tokens_per_s_high", &Row::tokens_per_s_high)
          .add("speedup_vs_ad", &Row::speedup_vs_ad)
          .add("speedup_vs_sps", &Row::speedup_vs_sps)
          .add("speedup_vs_sps_low", &Row::speedup_vs_sps_low)
          .add("speedup_vs_sps_high", &Row::speedup_vs_sps_high)
          .add("target_idle_fraction", &Row::target_idle_fraction)
          .add("draft_idle_fraction", &Row::draft_idle_fraction)
          .add("tokens_per_iteration", &Row::tokens_per_iteration)
          .add("processed_tokens_per_iteration", &Row::processed_tokens_per_iteration)
          .add("iteration_s", &Row::iteration_s)
          .add("target_forward_s", &Row::target_forward_s)
          .add("draft_s", &Row::draft_s)
          .add("comm_s", &Row::comm_s)
          .add("ttft_s", &Row::ttft_s)
          .add("ttft_vs_ad", &Row::ttft_vs_ad)
          .add("ttft_vs_sps", &Row::ttft_vs_sps)
          .add("acceptance", &Row::acceptance),
      run_duo_scenario_entry);
  return typed;
}

namespace {
// Registers the scenario when the program starts (the registry lists it before any call).
const auto& duodecoding_registration = scenario();
}  // namespace

}  // namespace search::duodecoding
