// The DuoDecoding scenario in the scenario registry (search/scenarios/scenario.hpp).
#include <fmt/format.h>

#include "models/config_error.hpp"
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
  names.tokens = ctx.int_param("tokens");
  names.prompt = int(ctx.int_param("prompt"));
  DuoRequest q = make_duo_request(*ctx.configs, names);
  double alpha = 0;
  try {
    std::size_t used = 0;
    alpha = std::stod(p.at("alpha"), &used);
    if (used != p.at("alpha").size()) throw std::invalid_argument("alpha");
  } catch (const std::exception&) {
    throw models::InputError(fmt::format("scenario duodecoding: --param alpha: expected a number, got '{}'", p.at("alpha")));
  }
  q.stream = PositionStream::calibrated(alpha, kGeneratorTopK, std::uint64_t(ctx.int_param("seed")));
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
     {{"system", paper003_testbed().system, "system config"},
      {"draft", paper003_testbed().draft, "draft model (MODEL@FORMAT)"},
      {"draft-device", "", "device running the draft (default: the system's placement.draft)"},
      {"alpha", "0.435", "per-token acceptance of the calibrated generator (paper 003 Table 4: 0.348 + 0.087)"},
      {"budget", "auto", "draft passes per iteration or auto (hardware-aware)"},
      {"sequences", "dynamic", "static:N or dynamic"},
      {"tokens", "1024", "tokens to generate"},
      {"prompt", "256", "prompt tokens (TTFT; decode steps start at this context and grow)"},
      {"seed", "1", "generator seed"},
      {"engine", "roofline", "latency engine for every device"}},
     run_duo_scenario_entry});

}  // namespace
}  // namespace search::duodecoding
