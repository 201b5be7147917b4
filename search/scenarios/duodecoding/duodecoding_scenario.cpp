// The DuoDecoding scenario in the scenario registry (search/scenarios/scenario.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "search/acceptance/acceptance_statistics.hpp"
#include "search/scenarios/duodecoding/duo_scenario.hpp"
#include "search/scenarios/scenario.hpp"

namespace search::duodecoding {
namespace {

// `specdse scenario duodecoding --model M [--param KEY=VALUE ..]`: the summary rows of
// `specdse duo`.
ScenarioResult run_duo_scenario_entry(const ScenarioContext& ctx) {
  ctx.require(ctx.workload != nullptr, "--model");
  ctx.require(ctx.configs != nullptr, "the config registry");
  const auto& p = ctx.params;
  DuoNames names = paper003_testbed(p.at("engine"));
  names.system = p.at("system");
  names.model = ctx.workload->target.name;  // --model (the testbed's is llama-2-7b)
  names.draft = p.at("draft");
  names.draft_device = p.at("draft-device");
  names.tokens = ctx.integer("tokens");
  names.prompt = int(ctx.integer("prompt"));
  // The band is read before the request is made (making it may run SystemC; see cmd_duo.cpp).
  std::optional<ProcessBand> band;
  if (p.at("alpha").empty()) band = resolve_process_band(p.at("acceptance"), ctx.configs->dir(), "--acceptance");
  DuoRequest q = make_duo_request(*ctx.configs, names);
  const auto seed = std::uint64_t(ctx.integer("seed"));
  q.budget = parse_budget(p.at("budget"));
  q.policy = parse_sequences(p.at("sequences"), 4);
  // The acceptance: a fixed per-token alpha (independent, calibrated generator) when given, else
  // every member of the process band; the rows are the band's central member, the _low / _high
  // columns the range over the band.
  std::vector<PositionStream> streams;
  std::string acceptance;
  std::string acceptance_column;  // what the acceptance was fitted to, in every row (CSVs carry no footer)
  if (!p.at("alpha").empty()) {
    streams.push_back(PositionStream::calibrated(ctx.real("alpha"), kGeneratorTopK, seed));
    acceptance = fmt::format("independent acceptance alpha {}", ctx.real("alpha"));
    acceptance_column = acceptance;
  } else {
    streams.push_back(
        PositionStream::from_process(AcceptanceProcess(band->central().params, band->name), kGeneratorTopK, seed));
    for (const auto* m : band->others())
      streams.push_back(PositionStream::from_process(AcceptanceProcess(m->params, band->name), kGeneratorTopK, seed));
    acceptance = fmt::format("acceptance process {} ({} fits consistent with {}{}; central: {})", band->name,
                             band->members.size(), band->fitted_to,
                             band->borrowed.empty() ? "" : fmt::format(", not fitted: {}", fmt::join(band->borrowed, "; ")),
                             band->central().params.describe());
    acceptance_column = band->column();
  }
  std::vector<DuoReport> reports;
  for (auto& stream : streams) {
    q.stream = stream;
    reports.push_back(run_duo_scenario(q));
  }
  const DuoReport& r = reports.front();
  ScenarioResult out;
  out.columns = {"method", "budget", "tokens", "tokens_per_s", "tokens_per_s_low", "tokens_per_s_high", "speedup_vs_ad",
                 "speedup_vs_sps", "speedup_vs_sps_low", "speedup_vs_sps_high", "target_idle_fraction",
                 "draft_idle_fraction", "tokens_per_iteration", "iteration_s", "ttft_s", "acceptance"};
  const double ttft[3] = {r.ttft.ad_s, r.ttft.sps_s, r.ttft.duo_parallel_s};
  auto method_of = [](const DuoReport& d, int k) -> const ScenarioRun& { return k == 0 ? d.ad : k == 1 ? d.sps : d.duo; };
  for (int k = 0; k < 3; ++k) {
    const ScenarioRun& run = method_of(r, k);
    double lo = run.tokens_per_s, hi = lo, vs_lo = run.tokens_per_s / r.sps.tokens_per_s, vs_hi = vs_lo;
    for (const auto& other : reports) {
      const double v = method_of(other, k).tokens_per_s, vs = v / other.sps.tokens_per_s;
      lo = std::min(lo, v), hi = std::max(hi, v), vs_lo = std::min(vs_lo, vs), vs_hi = std::max(vs_hi, vs);
    }
    out.rows.push_back({to_string(run.plan.method), std::int64_t(run.plan.budget), std::int64_t(run.plan.tokens),
                        run.tokens_per_s, lo, hi, run.tokens_per_s / r.ad.tokens_per_s,
                        run.tokens_per_s / r.sps.tokens_per_s, vs_lo, vs_hi, run.target_idle_fraction,
                        run.draft_idle_fraction, run.tokens_per_iteration, run.mean_iteration_s, ttft[k],
                        acceptance_column});
  }
  // Decision boundaries: the independent per-token acceptances at which DuoDecoding's tokens/s
  // crosses SpS's on this system, from a scan in steps of 0.02 (the ratio is not monotone: at
  // very low acceptance both are AD-like, and SpS's window changes with alpha), each crossing
  // placed by linear interpolation.
  auto duo_over_sps = [&](double alpha) {
    q.stream = PositionStream::calibrated(alpha, kGeneratorTopK, seed);
    const DuoReport d = run_duo_scenario(q);
    return d.duo.tokens_per_s / d.sps.tokens_per_s - 1;
  };
  std::string crossings;
  double prev_a = 0.05, prev = 0;
  const bool scan = ctx.flag("boundary");
  if (scan) prev = duo_over_sps(prev_a);
  for (int i = 1; scan && i <= 47; ++i) {
    const double a = 0.05 + 0.02 * i, v = duo_over_sps(a);
    if ((v > 0) != (prev > 0))
      crossings += fmt::format("{}{} at alpha {:.3f}", crossings.empty() ? "" : ", ",
                               v > 0 ? "overtakes SpS" : "falls behind SpS", prev_a + (a - prev_a) * prev / (prev - v));
    prev_a = a, prev = v;
  }
  const std::string boundary =
      !scan ? std::string("decision boundary not scanned")
      : crossings.empty()
          ? fmt::format("at an independent acceptance of 0.05-0.99 DuoDecoding is {} SpS throughout",
                        prev > 0 ? "ahead of" : "behind")
          : fmt::format("at an independent acceptance of 0.05-0.99 DuoDecoding {}", crossings);
  out.footer = fmt::format("cost coefficient {:.3f} -> hardware-aware budget {}; SpS gamma {}; {}; {}", r.cost_coefficient,
                           r.hardware_budget, r.sps_gamma, acceptance, boundary);
  return out;
}

const ScenarioRegistration duo_scenario_registered(
    {"duodecoding",
     "DuoDecoding (paper 003): CPU draft in parallel with the GPU target on a system's timeline, vs AD and SpS",
     {param::system(paper003_testbed().system),
      param::text("draft", paper003_testbed().draft, "draft model (MODEL@FORMAT)"),
      param::draft_device(),
      param::acceptance_band("duodecoding-paper003", ": the default is fitted to paper 003 Table 4's check confusion"),
      param::optional_real("alpha", 1e-6, 1 - 1e-6, "",
                           "a fixed per-token acceptance (independent, calibrated generator) instead of the process"),
      param::text("budget", "auto", "draft passes per iteration or auto (hardware-aware)"),
      param::text("sequences", "dynamic", "static:N or dynamic"),
      // A run is a few timeline tasks per token: 10^6 tokens is about a minute, the bound.
      param::integer("tokens", 1024, 1, 1e6, "tokens", "tokens to generate"),
      param::integer("prompt", 256, 1, 1e6, "tokens", "prompt tokens (TTFT; decode steps start at this context and grow)"),
      param::seed("the generator"),
      param::boolean("boundary", true,
                     "scan independent per-token acceptances 0.05-0.99 for where DuoDecoding crosses SpS (the footer)"),
      param::choice("engine", "roofline", {"roofline", "sim", "sim-clocked"}, "latency engine for every device")},
     run_duo_scenario_entry,
     "",
     {"model"},
     {"model"},
     ""});  // no plot script

}  // namespace
}  // namespace search::duodecoding
