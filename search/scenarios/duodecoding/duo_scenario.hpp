#pragma once
// The DuoDecoding scenario end to end: hardware-aware budget from the engines, DuoDecoding,
// SpS and AD planned over the same acceptance stream and laid on the same timeline, TTFT, and
// the budget sweep (paper 003 Table 3's shape). Header-only for the reason duo_timeline.hpp
// gives.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/config_registry.hpp"
#include "search/scenarios/duodecoding/duo_timeline.hpp"

namespace search::duodecoding {

struct DuoRequest {
  DuoPlacement placement;
  DuoCosts costs = DuoCosts::constant(1, 1);
  int draft_vocab = 0;
  PositionStream stream = PositionStream::calibrated(0.5, 4, 1);
  int budget = 0;              // 0: the hardware-aware budget
  SequencePolicy policy;
  long long tokens = 1024;
  int sps_gamma = 0;           // 0: paper 001's best window for the stream's acceptance
  int sps_gamma_max = 32;      // search range of that window
  int prompt = 256;            // TTFT prompt tokens
  // SpS's own placement and costs when its draft runs elsewhere than DuoDecoding's (paper 003's
  // SpS baseline drafts on the GPU with Transformers); unset: the same draft device.
  std::optional<DuoPlacement> sps_placement;
  std::optional<DuoCosts> sps_costs;
};

struct DuoReport {
  double cost_coefficient = 0;
  int hardware_budget = 0;
  int budget = 0;
  int sps_gamma = 0;
  ScenarioRun ad, sps, duo;
  TtftResult ttft;
};

// What names select (the CLI and the reproductions share it).
struct DuoNames {
  std::string system, model, draft, engine = "roofline", draft_device;
  std::string sps_draft_device;  // empty: SpS drafts where DuoDecoding does
  std::string sps_draft;         // empty: SpS drafts with DuoDecoding's draft model
  int prompt = 256;
  long long tokens = 1024;
};

// Placement, engine costs and draft vocabulary from names. The decode steps are costed at a
// context held at prompt + tokens / 2, the mean KV length over the generation (one engine
// call per distinct x instead of one per token).
inline DuoRequest make_duo_request(const models::ConfigRegistry& reg, const DuoNames& n) {
  if (n.tokens < 1) throw models::InputError(fmt::format("--tokens: expected >= 1, got {}", n.tokens));
  if (n.prompt < 1) throw models::InputError(fmt::format("--prompt: expected >= 1 tokens, got {}", n.prompt));
  DuoRequest q;
  const models::SystemSpec system = models::load_system(reg.path("systems", n.system), reg);
  const models::ModelSpec target = reg.model(n.model);
  const models::ModelSpec draft = reg.model(n.draft);
  q.placement = resolve_placement(system, target, n.draft_device);
  q.costs = DuoCosts::from_engines(q.placement, target, draft, n.engine, n.prompt + n.tokens / 2);
  q.draft_vocab = draft.vocab_size;
  q.prompt = n.prompt;
  q.tokens = n.tokens;
  if (!n.sps_draft_device.empty() || !n.sps_draft.empty()) {
    const models::ModelSpec sps_draft = n.sps_draft.empty() ? draft : reg.model(n.sps_draft);
    if (sps_draft.vocab_size != draft.vocab_size)
      throw models::InputError(fmt::format("--sps-draft: {} has a vocabulary of {}, the draft {} one of {}",
                                           sps_draft.name, sps_draft.vocab_size, draft.name, draft.vocab_size));
    q.sps_placement = resolve_placement(system, target, n.sps_draft_device);
    q.sps_costs = DuoCosts::from_engines(*q.sps_placement, target, sps_draft, n.engine, n.prompt + n.tokens / 2);
  }
  return q;
}

inline const DuoPlacement& sps_placement(const DuoRequest& q) { return q.sps_placement ? *q.sps_placement : q.placement; }
inline const DuoCosts& sps_costs(const DuoRequest& q) { return q.sps_costs ? *q.sps_costs : q.costs; }

inline int resolve_sps_gamma(const DuoRequest& q) {
  if (q.sps_gamma > 0) return q.sps_gamma;
  const auto& pl = sps_placement(q);
  auto transfers = [&](int g) {
    return link_transfer_s(pl, pl.draft_device, pl.target_device, draft_to_target_bytes(g, q.draft_vocab)) +
           link_transfer_s(pl, pl.target_device, pl.draft_device, target_to_draft_bytes(g));
  };
  return best_sps_gamma(q.stream.acceptance_estimate(), sps_costs(q), transfers, q.sps_gamma_max);
}

inline DuoReport run_duo_scenario(const DuoRequest& q) {
  DuoReport r;
  r.cost_coefficient = q.costs.cost_coefficient();
  r.hardware_budget = hardware_aware_budget(q.costs);
  r.budget = q.budget > 0 ? q.budget : r.hardware_budget;
  r.sps_gamma = resolve_sps_gamma(q);
  r.duo = run_plan(q.placement, q.costs, plan_duo(q.stream, r.budget, q.policy, q.tokens), q.draft_vocab);
  // AD and SpS produce as many tokens as DuoDecoding did (a finite trace may end it early).
  const long long tokens = r.duo.plan.tokens;
  r.sps = run_plan(sps_placement(q), sps_costs(q), plan_sps(q.stream, r.sps_gamma, tokens), q.draft_vocab);
  r.ad = run_plan(q.placement, q.costs, plan_ad(tokens), q.draft_vocab);
  r.ttft = time_to_first_token(q.placement, q.costs, q.prompt, r.sps_gamma, r.budget, q.draft_vocab);
  if (q.sps_placement)  // SpS's TTFT with its own draft placement
    r.ttft.sps_s = time_to_first_token(sps_placement(q), sps_costs(q), q.prompt, r.sps_gamma, r.budget, q.draft_vocab).sps_s;
  return r;
}

// DuoDecoding with one sequence at each budget (paper 003 Table 3 fixes one sequence "to isolate
// the impact of drafting budget adjustments").
inline std::vector<std::pair<int, ScenarioRun>> budget_sweep(const DuoRequest& q, const std::vector<int>& budgets) {
  std::vector<std::pair<int, ScenarioRun>> out;
  SequencePolicy one;
  for (int b : budgets)
    out.emplace_back(b, run_plan(q.placement, q.costs, plan_duo(q.stream, b, one, q.tokens), q.draft_vocab));
  return out;
}

// The budget of a sweep with the highest tokens/s (ties: the smaller budget).
inline int best_budget(const std::vector<std::pair<int, ScenarioRun>>& sweep) {
  int best = 0;
  double rate = -1;
  for (const auto& [b, run] : sweep)
    if (run.tokens_per_s > rate * (1 + 1e-12)) best = b, rate = run.tokens_per_s;
  return best;
}

}  // namespace search::duodecoding
