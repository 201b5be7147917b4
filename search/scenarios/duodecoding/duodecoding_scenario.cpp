// The DuoDecoding scenario in the scenario registry (search/scenarios/scenario.hpp).
#include <fmt/format.h>

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
  DuoRequest q = make_duo_request(*ctx.configs, names);
  q.stream = PositionStream::calibrated(ctx.real("alpha"), kGeneratorTopK, std::uint64_t(ctx.integer("seed")));
  q.budget = parse_budget(p.at("budget"));
  q.policy = parse_sequences(p.at("sequences"), 4);
  const DuoReport r = run_duo_scenario(q);
  ScenarioResult out;
  out.columns = {"method", "budget", "tokens", "tokens_per_s", "speedup_vs_ad", "speedup_vs_sps", "target_idle_fraction",
                 "draft_idle_fraction", "tokens_per_iteration", "iteration_s", "ttft_s"};
  const double ttft[3] = {r.ttft.ad_s, r.ttft.sps_s, r.ttft.duo_parallel_s};
  int k = 0;
  for (const ScenarioRun* run : {&r.ad, &r.sps, &r.duo})
    out.rows.push_back({to_string(run->plan.method), std::int64_t(run->plan.budget), std::int64_t(run->plan.tokens),
                        run->tokens_per_s, run->tokens_per_s / r.ad.tokens_per_s, run->tokens_per_s / r.sps.tokens_per_s,
                        run->target_idle_fraction, run->draft_idle_fraction, run->tokens_per_iteration,
                        run->mean_iteration_s, ttft[k++]});
  out.footer = fmt::format("cost coefficient {:.3f} -> hardware-aware budget {}; SpS gamma {}", r.cost_coefficient,
                           r.hardware_budget, r.sps_gamma);
  return out;
}

const ScenarioRegistration duo_scenario_registered(
    {"duodecoding",
     "DuoDecoding (paper 003): CPU draft in parallel with the GPU target on a system's timeline, vs AD and SpS",
     {param::text("system", paper003_testbed().system, "system config"),
      param::text("draft", paper003_testbed().draft, "draft model (MODEL@FORMAT)"),
      param::text("draft-device", "", "device running the draft (default: the system's placement.draft)"),
      param::real("alpha", 0.435, 1e-6, 1 - 1e-6, "",
                  "per-token acceptance of the calibrated generator (paper 003 Table 4: 0.348 + 0.087)"),
      param::text("budget", "auto", "draft passes per iteration or auto (hardware-aware)"),
      param::text("sequences", "dynamic", "static:N or dynamic"),
      // A run is a few timeline tasks per token: 10^6 tokens is about a minute, the bound.
      param::integer("tokens", 1024, 1, 1e6, "tokens", "tokens to generate"),
      param::integer("prompt", 256, 1, 1e6, "tokens", "prompt tokens (TTFT; decode steps start at this context and grow)"),
      param::integer("seed", 1, 0, 9.0e18, "", "generator seed"),
      param::choice("engine", "roofline", {"roofline", "sim", "sim-clocked"}, "latency engine for every device")},
     run_duo_scenario_entry,
     "",
     {"model"},
     {"model"}});

}  // namespace
}  // namespace search::duodecoding
