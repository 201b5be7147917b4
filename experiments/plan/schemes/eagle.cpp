// EAGLE head (paper 004): a one-layer head on the target's features drafts a static tree; the
// eagle-dispatcher scenario picks the tree that maximises tokens per call over the step time at
// the request's batch, on one GPU or tensor parallel over the system's first stage. Its
// acceptance is paper 004's (a head trained for the target); targets it has none for are not
// applicable.
#include <fmt/format.h>

#include "experiments/plan/plan_scheme.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"
#include "models/config_error.hpp"

namespace experiments::eagle_scheme {
namespace {

constexpr const char* kScheme = "EAGLE head";
constexpr const char* kSummary =
    "an EAGLE head drafting a static tree chosen per batch (paper 004's dispatcher)";

std::vector<PlanCandidate> run_eagle(const PlanSetup& s) {
  if (s.system.stages.size() != 1)
    return {untimed(kScheme, "", "not applicable: the eagle-dispatcher scenario runs the target on one stage")};
  const auto& lead = s.system.devices[std::size_t(s.target_device())];
  if (!lead.hardware.runs_gpu_serving_stacks()) return {untimed(kScheme, "", "not applicable: the dispatcher models GPUs only")};
  const bool one = s.target_on_one_device();
  const std::string where = one ? "head and target on " + lead.name
                                : fmt::format("head and target tensor parallel over {} GPUs",
                                              s.system.stages.front().devices.size());
  ScenarioInputs in = s.inputs();
  in.system_spec = nullptr;
  if (one) in.hw_spec = &lead.hardware;
  else in.params = s.system_setting();
  in.params.push_back(fmt::format("batch={}", s.batch));
  if (one && lead.hardware.stack.name != "bare") in.params.push_back("stack=" + lead.hardware.stack.name);
  std::vector<PlanCandidate> rejected;
  const auto r = run_candidate_scenario(s, "eagle-dispatcher", in, kScheme, where, rejected);
  if (!r) return rejected;
  const ResultRows rows(*r);
  PlanCandidate c(kScheme, where);
  c.status = rows.text(0, "status");
  if (!c.ok()) return {c};
  const double ttit_s = rows.number(0, "ttit_ms") * 1e-3;
  c.tbt_s = ttit_s / rows.number(0, "tpc");
  c.tbt_low_s = ttit_s / rows.number(0, "tpc_high");
  c.tbt_high_s = ttit_s / rows.number(0, "tpc_low");
  c.parameters = "tree " + rows.text(0, "tree");
  c.draft_head = s.algorithm.empty() ? search::kDefaultEagleHead : s.algorithm;
  c.draft_device = s.target_device();
  c.step_tokens = int(rows.number(0, "x"));
  if (!rows.text(0, "at_search_limit").empty()) {
    c.parameters += " (largest searched)";
    // plan has no --max-nodes: the eagle command that searches further.
    c.search_limit = fmt::format("tree {}: the largest searched (specdse eagle --max-nodes searches further)",
                                 rows.text(0, "tree"));
  }
  c.acceptance = "paper 004's EAGLE acceptance for the target (band over processes fitting its chains)";
  c.why = fmt::format("{:.3g} tokens per {:.3g} ms step (verify {:.3g} ms, head {:.3g} ms, host {:.3g} ms)",
                      rows.number(0, "tpc"), rows.number(0, "ttit_ms"), rows.number(0, "t_verify_ms"),
                      rows.number(0, "t_draft_ms"), rows.number(0, "t_host_ms"));
  // eagle's own --batch defaults to a list of sizes: always name the one planned for.
  c.reproduce = reproduce_command(
      s, fmt::format("eagle {} --batch {}",
                     one ? s.hw_args(s.target_device()) : "--system " + s.system_arg(),
                     s.batch),
      false);
  c.write_trace = r->write_trace;
  return {c};
}

const PlanSchemeRegistration eagle_registration{{kScheme, kSummary, 30, run_eagle}};

}  // namespace
}  // namespace experiments::eagle_scheme
