// chain SD (paper 001's setting): a draft model drafts gamma tokens, the target verifies them in
// one pass. For each draft (--draft, or every smaller model that shares the target's
// vocabulary) and each place the system can run it (its draft device, the target's own device,
// a CPU), the chain-sd scenario times every window gamma on the system timeline and plan keeps
// the best. A target the system pipelines or shards verifies over that placement (the system
// step). Acceptance: --alpha, independent per token, or --acceptance BAND (its fits' chains).
#include <fmt/format.h>

#include <algorithm>

#include "search/plan/plan_scheme.hpp"
#include "models/config_error.hpp"
#include "search/scenarios/chain_sd/chain_sd_scenario.hpp"

namespace search::chain_sd_scheme {
namespace {

constexpr const char* kScheme = "chain SD";
constexpr const char* kSummary =
    "a draft model's chain of gamma tokens, verified in one target pass; every draft and placement";
// Windows searched: 1..16 (paper 001's adaptive windows stay below 16); a best window on the
// edge says so.
constexpr int kGammaMax = 16;

std::vector<PlanCandidate> run_chain_sd(const PlanSetup& s) {
  if (s.batch > 1) return {untimed(kScheme, "", "not applicable: the chain-sd scenario times batch 1")};
  if (!s.alpha && s.acceptance.empty())
    return {untimed(kScheme, "", "not applicable: give --alpha (its per-token acceptance) or --acceptance BAND")};
  if (s.drafts.empty()) return {untimed(kScheme, "", "not applicable: no draft model shares the target's vocabulary")};
  // Places a draft can run: the system's draft device, the target's device, every CPU.
  std::vector<int> places;
  auto add = [&](int d) {
    if (d >= 0 && std::find(places.begin(), places.end(), d) == places.end()) places.push_back(d);
  };
  add(s.system.draft_device);
  add(s.target_device());
  for (std::size_t d = 0; d < s.system.devices.size(); ++d)
    if (s.system.devices[d].hardware.host_processor()) add(int(d));
  std::vector<PlanCandidate> out;
  for (const auto& draft : s.drafts) {
    for (int place : places) {
      const auto& dev = s.system.devices[std::size_t(place)];
      const bool one = s.target_on_one_device();
      const std::string where =
          fmt::format("draft {} on {}{}{}", draft.name, dev.name,
                      place != s.target_device() ? ""
                      : one                      ? " (beside the target)"
                                                 : " (beside the target's first shard)",
                      one ? "" : fmt::format(", target over the system's placement"));
      search::chain_sd::Params p = search::chain_sd::scenario().defaults();
      if (!s.single_hw) p.system = s.system_arg();
      p.draft = model_arg(*s.configs, draft);
      p.draft_device = dev.name;
      p.alpha = s.alpha;
      if (!s.alpha) p.acceptance = s.acceptance;
      p.gamma.clear();
      for (long long g = 1; g <= kGammaMax; ++g) p.gamma.push_back(g);
      const auto r = run_candidate_scenario(s, search::chain_sd::scenario(), s.inputs(), p, kScheme, where, out);
      if (!r) continue;
      PlanCandidate c(kScheme, where);
      c.acceptance = s.alpha ? fmt::format("alpha {} per token, independent (--alpha)", *s.alpha) : std::string();
      c.alpha_driven = s.alpha.has_value();
      const search::chain_sd::Row* best = nullptr;
      for (const auto& row : r->rows) {
        if (row.best) best = &row;
        if (!row.status.is_ok()) c.status = row.status.text();
      }
      if (!best) {
        out.push_back(c);
        continue;
      }
      c.status = "ok";
      c.tbt_s = 1 / *best->tokens_per_s;
      // The band's range (equal to the row without one): the fastest fit gives the lowest TBT.
      c.tbt_low_s = 1 / *best->tokens_per_s_high;
      c.tbt_high_s = 1 / *best->tokens_per_s_low;
      if (c.acceptance.empty()) c.acceptance = best->acceptance.value_or("");
      c.parameters = fmt::format("gamma={}", best->gamma);
      c.draft_model = draft;
      c.draft_device = place;
      c.step_tokens = int(best->gamma) + 1;
      if (best->gamma >= kGammaMax) c.parameters += " (largest searched)";
      c.why = fmt::format("{:.3g} tokens per {:.3g} ms iteration (draft {:.3g} ms, transfers {:.3g} ms, verify {:.3g} ms)",
                          *best->expected_tokens_per_step, *best->step_s * 1e3, *best->t_draft_s * 1e3,
                          *best->t_transfer_s * 1e3, *best->t_verify_s * 1e3);
      // The scenario's own command with the settings this run was given (--hw's device by name).
      c.reproduce = reproduce_command(s,
                                      "chain-sd" + (s.single_hw ? " " + s.hw_args(place) : std::string()) +
                                          scenario_flags("chain-sd", search::chain_sd::scenario().settings(p, {"system"})),
                                      false);
      c.write_trace = r->table.write_trace;
      out.push_back(std::move(c));
    }
  }
  return out;
}

const PlanSchemeRegistration chain_sd_registration{{kScheme, kSummary, 10, run_chain_sd}};

}  // namespace
}  // namespace search::chain_sd_scheme
