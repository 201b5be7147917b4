#include "search/scenarios/duodecoding/duo_scenario.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"

namespace search::duodecoding {

DuoNames paper003_testbed(const std::string& engine) {
  DuoNames n;
  n.system = "duodecoding-a800-xeon";
  n.model = "llama-2-7b";
  n.draft = "llama-68m@q5_k_m";
  n.engine = engine;
  return n;
}

DuoRequest make_duo_request(const models::ConfigRegistry& reg, const DuoNames& n) {
  if (n.tokens < 1) throw models::InputError(fmt::format("--tokens: expected >= 1, got {}", n.tokens));
  if (n.prompt < 1) throw models::InputError(fmt::format("--prompt: expected >= 1 tokens, got {}", n.prompt));
  DuoRequest q;
  const models::SystemSpec system = models::load_system(reg.path("systems", n.system), reg);
  const models::ModelSpec target = reg.model(n.model);
  const models::ModelSpec draft = reg.model(n.draft);
  const long long reference_context = n.prompt + n.tokens / 2;
  q.placement = resolve_placement(system, target, n.draft_device);
  q.costs = DuoCosts::from_engines(q.placement, target, draft, n.engine, n.prompt, reference_context);
  q.draft_vocab = draft.vocab_size;
  q.prompt = n.prompt;
  q.tokens = n.tokens;
  // SpS as conventionally run (Leviathan et al.; paper 003's baseline, §4.1: "models on GPU run in
  // FP16"): the draft beside the target on its device, in the target device's precision, i.e. the
  // draft's own config without the CPU's quantised format. --sps-draft-device / --sps-draft name
  // another placement or model (the draft device itself: SpS with DuoDecoding's CPU draft).
  const std::string target_name = q.placement.system.devices[std::size_t(q.placement.target_device)].name;
  const bool defaulted = n.sps_draft_device.empty();
  const std::string sps_device = defaulted ? target_name : n.sps_draft_device;
  const bool beside_target = sps_device == target_name;
  // The format suffix is the last '@' (as ConfigRegistry::model reads NAME@FORMAT).
  const std::string sps_name =
      !n.sps_draft.empty() ? n.sps_draft : beside_target ? n.draft.substr(0, n.draft.rfind('@')) : n.draft;
  const models::ModelSpec sps_draft = reg.model(sps_name);
  if (sps_draft.vocab_size != draft.vocab_size)
    throw models::InputError(fmt::format("--sps-draft: {} has a vocabulary of {}, the draft {} one of {}",
                                         sps_draft.name, sps_draft.vocab_size, draft.name, draft.vocab_size));
  q.sps_draft = sps_name;
  const DuoPlacement sps_place = resolve_placement(system, target, sps_device, "--sps-draft-device");
  if (sps_place.draft_device != q.placement.draft_device || sps_name != n.draft) {
    try {
      q.sps_costs = DuoCosts::from_engines(sps_place, target, sps_draft, n.engine, n.prompt, reference_context);
      q.sps_placement = sps_place;
    } catch (const models::InfeasibleError& e) {
      // The default placement only: a placement the user named that does not fit is their error.
      if (!defaulted || !n.sps_draft.empty()) throw;
      // The draft does not fit beside the target: SpS drafts where DuoDecoding does, and says so.
      q.sps_costs.reset();
      q.sps_draft = n.draft;
      q.sps_note = fmt::format("SpS drafts on {} as DuoDecoding does: {} does not fit beside the target on {} ({})",
                               q.placement.system.devices[std::size_t(q.placement.draft_device)].name, sps_name,
                               target_name, e.what());
    }
  }
  return q;
}

const DuoPlacement& sps_placement(const DuoRequest& q) { return q.sps_placement ? *q.sps_placement : q.placement; }
const DuoCosts& sps_costs(const DuoRequest& q) { return q.sps_costs ? *q.sps_costs : q.costs; }

int resolve_sps_gamma(const DuoRequest& q) {
  if (q.sps_gamma > 0) return q.sps_gamma;
  const auto& pl = sps_placement(q);
  const DuoCosts& costs = sps_costs(q);
  auto transfers = [&](int g) {
    return costs.transfer_s(pl.draft_device, pl.target_device, draft_to_target_bytes(g, q.draft_vocab)) +
           costs.transfer_s(pl.target_device, pl.draft_device, verdict_bytes(g));
  };
  return best_sps_gamma(q.stream.acceptance_estimate(), costs, transfers, q.sps_gamma_max);
}

DuoReport run_duo_scenario(const DuoRequest& q) {
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
    r.ttft.sps_s =
        time_to_first_token(sps_placement(q), sps_costs(q), q.prompt, r.sps_gamma, r.budget, q.draft_vocab).sps_s;
  return r;
}

std::vector<std::pair<int, ScenarioRun>> budget_sweep(const DuoRequest& q, const std::vector<int>& budgets) {
  std::vector<std::pair<int, ScenarioRun>> out;
  SequencePolicy one;
  for (int b : budgets)
    out.emplace_back(b, run_plan(q.placement, q.costs, plan_duo(q.stream, b, one, q.tokens), q.draft_vocab));
  return out;
}

int best_budget(const std::vector<std::pair<int, ScenarioRun>>& sweep) {
  int best = 0;
  double rate = -1;
  for (const auto& [b, run] : sweep)
    if (run.tokens_per_s > rate * (1 + 1e-12)) best = b, rate = run.tokens_per_s;
  return best;
}

int parse_budget(const std::string& text) {
  if (text == "auto") return 0;
  try {
    std::size_t used = 0;
    const long v = std::stol(text, &used);
    if (used == text.size() && v >= 1 && v <= 4096) return int(v);
  } catch (const std::exception&) {
  }
  throw models::InputError(fmt::format("--budget: expected auto or an integer in [1, 4096], got '{}'", text));
}

SequencePolicy parse_sequences(const std::string& text, int max_sequences) {
  if (max_sequences < 1)
    throw models::InputError(fmt::format("--max-sequences: expected >= 1, got {}", max_sequences));
  SequencePolicy p;
  p.max_sequences = max_sequences;
  if (text == "dynamic") {
    p.dynamic = true;
    return p;
  }
  const std::string prefix = "static:";
  if (text.rfind(prefix, 0) == 0) {
    try {
      std::size_t used = 0;
      const std::string n = text.substr(prefix.size());
      const int v = std::stoi(n, &used);
      if (used == n.size() && v >= 1 && v <= 64) {
        p.static_sequences = v;
        return p;
      }
    } catch (const std::exception&) {
    }
  }
  throw models::InputError(fmt::format("--sequences: expected static:N (1 <= N <= 64) or dynamic, got '{}'", text));
}

}  // namespace search::duodecoding
