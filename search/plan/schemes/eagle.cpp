// EAGLE head (paper 004): a one-layer head on the target's features drafts a static tree; the
// eagle-dispatcher scenario picks the tree that maximises tokens per call over the step time at
// the request's batch, on one GPU or tensor parallel over the system's first stage. Its
// acceptance is paper 004's (a head trained for the target); targets it has none for are not
// applicable.
#include <fmt/format.h>

#include "search/plan/plan_scheme.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher_scenario.hpp"
#include "models/config_error.hpp"

namespace search::eagle_scheme {
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
  search::eagle_dispatcher::Params p = search::eagle_dispatcher::scenario().defaults();
  if (one) in.hw_spec = &lead.hardware;
  else p.system = s.system_arg();
  p.batch = {s.batch};
  if (one && lead.hardware.stack.name != "bare") p.stack = lead.hardware.stack.name;
  std::vector<PlanCandidate> rejected;
  const auto r = run_candidate_scenario(s, search::eagle_dispatcher::scenario(), in, p, kScheme, where, rejected);
  if (!r) return rejected;
  const search::eagle_dispatcher::Row& row = r->rows.at(0);
  PlanCandidate c(kScheme, where);
  if (!row.status.timed()) {
    c.status = row.status.text();
    return {c};
  }
  const double ttit_s = *row.ttit_ms * 1e-3;
  c.tbt_s = ttit_s / *row.tpc;
  c.tbt_low_s = ttit_s / *row.tpc_high;
  c.tbt_high_s = ttit_s / *row.tpc_low;
  c.parameters = "tree " + row.tree;
  c.draft_head = s.algorithm.empty() ? search::kDefaultEagleHead : s.algorithm;
  c.draft_device = s.target_device();
  c.step_tokens = int(*row.x);
  if (!row.at_search_limit.empty()) {
    c.parameters += " (largest searched)";
    // plan has no --max-nodes: the eagle command that searches further.
    c.search_limit = fmt::format("tree {}: the largest searched (specdse eagle --max-nodes searches further)", row.tree);
  }
  c.acceptance = "paper 004's EAGLE acceptance for the target (band over processes fitting its chains)";
  c.why = fmt::format("{:.3g} tokens per {:.3g} ms step (verify {:.3g} ms, head {:.3g} ms, host {:.3g} ms)", *row.tpc,
                      *row.ttit_ms, *row.t_verify_ms, *row.t_draft_ms, *row.t_host_ms);
  // eagle's own --batch defaults to a list of sizes: the settings always name the one planned for.
  c.reproduce = reproduce_command(
      s, "eagle" + (one ? " " + s.hw_arg(s.target_device()) + s.host_arg(s.target_device()) : std::string()) +
             scenario_flags("eagle-dispatcher", search::eagle_dispatcher::scenario().settings(p, {"system", "batch"})),
      false);
  c.write_trace = r->table.write_trace;
  return {c};
}

const PlanSchemeRegistration eagle_registration{{kScheme, kSummary, 30, run_eagle}};

}  // namespace
}  // namespace search::eagle_scheme
