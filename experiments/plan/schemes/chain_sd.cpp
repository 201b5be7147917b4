// chain SD (paper 001's setting): a draft model drafts gamma tokens, the target verifies them in
// one pass. For each draft (--draft, or every smaller model that shares the target's
// vocabulary) and each place the system can run it (its draft device, the target's own device,
// a CPU), the chain-sd scenario times every window gamma on the system timeline and plan keeps
// the best. A target the system pipelines or shards verifies over that placement (the system
// step). Acceptance: --alpha, independent per token, or --acceptance BAND (its fits' chains).
#include <fmt/format.h>

#include <algorithm>

#include "experiments/plan/plan_scheme.hpp"
#include "models/config_error.hpp"

namespace experiments::chain_sd_scheme {
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
      ScenarioInputs in = s.inputs();
      in.params = s.system_setting();
      in.params.push_back("draft=" + model_arg(*s.configs, draft));
      in.params.push_back("draft-device=" + dev.name);
      in.params.push_back(s.alpha ? fmt::format("alpha={}", *s.alpha) : "acceptance=" + s.acceptance);
      in.params.push_back(fmt::format("gamma=1-{}", kGammaMax));
      const auto r = run_candidate_scenario(s, "chain-sd", in, kScheme, where, out);
      if (!r) continue;
      const ResultRows rows(*r);
      PlanCandidate c(kScheme, where);
      c.acceptance = s.alpha ? fmt::format("alpha {} per token, independent (--alpha)", *s.alpha) : std::string();
      c.alpha_driven = s.alpha.has_value();
      std::optional<std::size_t> best;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows.text(i, "best") == "*") best = i;
        if (rows.text(i, "status") != "ok") c.status = rows.text(i, "status");
      }
      if (!best) {
        out.push_back(c);
        continue;
      }
      c.status = "ok";
      const double tps = rows.number(*best, "tokens_per_s");
      c.tbt_s = 1 / tps;
      // The band's range (equal to the row without one): the fastest fit gives the lowest TBT.
      c.tbt_low_s = 1 / rows.number(*best, "tokens_per_s_high");
      c.tbt_high_s = 1 / rows.number(*best, "tokens_per_s_low");
      if (c.acceptance.empty()) c.acceptance = rows.text(*best, "acceptance");
      c.parameters = "gamma=" + rows.text(*best, "gamma");
      c.draft_model = draft;
      c.draft_device = place;
      c.step_tokens = int(rows.number(*best, "gamma")) + 1;
      if (rows.number(*best, "gamma") >= kGammaMax) c.parameters += " (largest searched)";
      c.why = fmt::format("{:.3g} tokens per {:.3g} ms iteration (draft {:.3g} ms, transfers {:.3g} ms, verify {:.3g} ms)",
                          rows.number(*best, "expected_tokens_per_step"), rows.number(*best, "step_s") * 1e3,
                          rows.number(*best, "t_draft_s") * 1e3, rows.number(*best, "t_transfer_s") * 1e3,
                          rows.number(*best, "t_verify_s") * 1e3);
      c.reproduce = reproduce_command(s, fmt::format("chain-sd {} --draft {} --draft-device {} {} --gamma 1-{}",
                                                       s.single_hw ? s.hw_args(place) : "--system " + s.system_arg(),
                                                       model_arg(*s.configs, draft), dev.name,
                                                       s.alpha ? fmt::format("--alpha {}", *s.alpha)
                                                               : "--acceptance " + s.acceptance,
                                                       kGammaMax),
                                        false);
      c.write_trace = r->write_trace;
      out.push_back(std::move(c));
    }
  }
  return out;
}

const PlanSchemeRegistration chain_sd_registration{{kScheme, kSummary, 10, run_chain_sd}};

}  // namespace
}  // namespace experiments::chain_sd_scheme
