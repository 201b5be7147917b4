// DuoDecoding (paper 003): the draft runs on a CPU in parallel with the target on the GPU, and
// SpS as the paper's baseline ran it (the same draft model beside the target on its GPU, in the
// target's precision, drafting then verifying in series) beside it, from one run of the
// duodecoding scenario. Applies where the system has a CPU device and the target runs on one
// device. Acceptance: --alpha (independent per token), or without it the process band fitted to
// paper 003's Table 4, which is measured for one pair only (its testbed's draft and target).
#include <fmt/format.h>

#include "search/plan/plan_scheme.hpp"
#include "models/config_error.hpp"
#include "search/scenarios/duodecoding/duo_scenario.hpp"
#include "search/scenarios/duodecoding/duodecoding_scenario.hpp"

namespace search::duodecoding_scheme {
namespace {

constexpr const char* kScheme = "DuoDecoding";
constexpr const char* kSummary =
    "a CPU draft in parallel with the GPU target (and SpS, the same draft beside the target, in series)";

std::vector<PlanCandidate> run_duodecoding(const PlanSetup& s) {
  int cpu = -1;
  for (std::size_t d = 0; d < s.system.devices.size() && cpu < 0; ++d)
    if (s.system.devices[d].hardware.host_processor() && int(d) != s.target_device()) cpu = int(d);
  if (cpu < 0 || s.single_hw) return {untimed(kScheme, "", "not applicable: the system has no CPU to draft on")};
  if (!s.target_on_one_device())
    return {untimed(kScheme, "", "not applicable: the duodecoding scenario runs the target on one device")};
  if (s.batch > 1) return {untimed(kScheme, "", "not applicable: DuoDecoding decodes one sequence")};
  const auto testbed = search::duodecoding::paper003_testbed();
  // Without --alpha, only the pair whose acceptance was measured (the band's statistics).
  std::string draft;
  if (!s.alpha && s.acceptance.empty()) {
    const std::string testbed_draft = s.configs->model(testbed.draft).name;
    bool listed = !s.drafts_given;
    for (const auto& d : s.drafts) listed = listed || d.name == testbed_draft;
    if (s.target.name != s.configs->model(testbed.model).name || !listed)
      return {untimed(kScheme, "", fmt::format("not applicable: acceptance is measured only for {} drafting for {}; "
                                               "give --alpha for another pair",
                                               testbed_draft, s.configs->model(testbed.model).name))};
    draft = testbed.draft;
  } else {
    if (s.drafts.empty())
      return {untimed(kScheme, "", "not applicable: no draft model shares the target's vocabulary")};
    draft = model_arg(*s.configs, s.drafts.front());
    // Under a band, the testbed's own CPU draft (quantised as paper 003 ran it) for the testbed's
    // target when the candidates include it.
    if (!s.alpha && s.target.name == s.configs->model(testbed.model).name) {
      const std::string testbed_draft = s.configs->model(testbed.draft).name;
      for (const auto& d : s.drafts)
        if (d.name == testbed_draft) draft = testbed.draft;
    }
  }
  const auto& cpu_dev = s.system.devices[std::size_t(cpu)];
  const auto& gpu_dev = s.system.devices[std::size_t(s.target_device())];
  const auto& scenario = search::duodecoding::scenario();
  search::duodecoding::Params p = scenario.defaults();
  p.system = s.system_arg();
  // The draft as the scenario reads it: a config name, a quantised variant (NAME@FORMAT) or a file.
  p.draft = draft;
  p.draft_device = cpu_dev.name;
  p.prompt = s.context;
  p.alpha = s.alpha;
  p.acceptance = s.acceptance;
  p.boundary = false;
  const std::string draft_name = s.configs->model(draft).name;
  std::vector<PlanCandidate> out;
  const auto r = run_candidate_scenario(s, scenario, s.inputs(), p, kScheme,
                                        "draft " + draft_name + " on " + cpu_dev.name, out);
  if (!r) return out;
  for (std::size_t i = 0; i < r->rows.size(); ++i) {
    const search::duodecoding::Row& row = r->rows[i];
    const std::string& method = row.method;
    if (method == "AD") continue;  // the plain scheme's baseline
    // With an independent --alpha the chain SD scheme times this same SpS (the draft beside the
    // target) from its expected tokens per iteration; the scenario's row is a sampled estimate of
    // it (1024 tokens drawn), so it would put a second, noisier answer to one question in the table.
    if (method == "SpS" && s.alpha) continue;
    const bool sps = method == "SpS";
    PlanCandidate c;
    c.scheme = sps ? "chain SD" : kScheme;
    // The scenario's SpS drafts as paper 003's baseline did (beside the target, in its precision)
    // unless the draft does not fit there; the row says where it ran.
    const models::ModelSpec row_draft = s.configs->model(row.draft_model);
    const bool beside = row.draft_device == gpu_dev.name;
    c.placement = !sps ? fmt::format("draft {} on {}, target on {}, in parallel", draft_name, cpu_dev.name, gpu_dev.name)
                  : beside ? fmt::format("draft {} beside the target on {} (paper 003's SpS)", row_draft.name, gpu_dev.name)
                           : fmt::format("draft {} on {}, then the target on {} verifies (in series; it does not fit "
                                         "beside the target)",
                                         row_draft.name, row.draft_device, gpu_dev.name);
    c.tbt_s = 1 / row.tokens_per_s;
    c.tbt_low_s = 1 / row.tokens_per_s_high;
    c.tbt_high_s = 1 / row.tokens_per_s_low;
    c.ttft_s = row.ttft_s;
    c.draft_model = row_draft;
    c.draft_device = s.system.device_index(row.draft_device);
    c.parameters = sps ? fmt::format("gamma={}", row.budget) : fmt::format("budget {}", row.budget);
    c.acceptance = row.acceptance;
    c.alpha_driven = s.alpha.has_value();
    c.why = fmt::format("{:.3g} tokens per {:.3g} ms iteration; target idle {:.0f} %", row.tokens_per_iteration,
                        row.iteration_s * 1e3, row.target_idle_fraction * 100);
    c.reproduce = scenario_command(s, "duodecoding", scenario.settings(p, {"system", "draft"}));
    if (i < r->table.row_traces.size()) c.write_trace = r->table.row_traces[i];  // this method's own run
    out.push_back(std::move(c));
  }
  return out;
}

const PlanSchemeRegistration duodecoding_registration{{kScheme, kSummary, 50, run_duodecoding}};

}  // namespace
}  // namespace search::duodecoding_scheme
