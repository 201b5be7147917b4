// tree SD (paper 000): a drafter's token tree verified in one target pass, at the verification
// length x that maximises AAT(x) / (T_v + T_d), from the measured AAT of each algorithm that has
// measurements for the target and task (configs/acceptance/aat_measurements.csv), or with
// --acceptance BAND from the band's chains or best-first trees (the measured algorithms, or
// --algorithm),
// on the target's device. Runs the tree-sd scenario (`specdse optimize` is its command).
#include <fmt/format.h>

#include <set>

#include "search/plan/plan_scheme.hpp"
#include "models/config_error.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/scenarios/tree_sd/tree_sd_scenario.hpp"

namespace search::tree_sd_scheme {
namespace {

constexpr const char* kScheme = "tree SD";
constexpr const char* kSummary =
    "a token tree verified in one pass at the best x, from measured AAT (each algorithm measured)";

std::vector<PlanCandidate> run_tree_sd(const PlanSetup& s) {
  if (!s.target_on_one_device())
    return {untimed(kScheme, "", "not applicable: the tree-sd scenario runs the target on one device")};
  const auto data = search::AcceptanceData::load(s.configs->dir() + "/acceptance/aat_measurements.csv");
  std::set<std::string> algorithms;
  for (const auto& row : data.rows())
    if (row.target_model == s.target.name && row.task == s.task &&
        (s.algorithm.empty() || row.algorithm == s.algorithm))
      algorithms.insert(row.algorithm);
  if (algorithms.empty() && !s.acceptance.empty() && !s.algorithm.empty()) algorithms.insert(s.algorithm);
  if (algorithms.empty())
    return {untimed(kScheme, "", fmt::format("not applicable: no measured AAT for {} on task {}{}", s.target.name,
                                             s.task, s.algorithm.empty() ? "" : " with " + s.algorithm))};
  const auto& dev = s.system.devices[std::size_t(s.target_device())];
  std::vector<PlanCandidate> out;
  for (const auto& algorithm : algorithms) {
    const std::string where = fmt::format("{} drafter and target on {}", algorithm, dev.name);
    ScenarioInputs in = s.inputs();
    in.system_spec = nullptr;
    in.hw_spec = &dev.hardware;
    in.algorithm = algorithm;
    search::tree_sd::Params p = search::tree_sd::scenario().defaults();
    p.acceptance = s.acceptance;
    const auto r = run_candidate_scenario(s, search::tree_sd::scenario(), in, p, kScheme, where, out);
    if (!r) continue;
    // The scenario found the searched x range to fit beside the weights (its memory rule).
    const search::tree_sd::Row& row = r->rows.at(0);
    PlanCandidate c(kScheme, where);
    const int x = int(row.best_x);
    c.tbt_s = 1 / row.best_tokens_per_s;
    // The band's range (equal without one): TBT scales inversely with the speed-up over AD.
    c.tbt_low_s = c.tbt_s * row.speedup / row.speedup_high;
    c.tbt_high_s = c.tbt_s * row.speedup / row.speedup_low;
    c.parameters = fmt::format("x={}", x);
    c.draft_head = algorithm;
    c.draft_device = s.target_device();
    c.step_tokens = x;
    if (!row.at_search_limit.empty()) {
      c.parameters += " (" + row.at_search_limit + ")";
      c.search_limit = row.at_search_limit;
    }
    c.acceptance = s.acceptance.empty()
                       ? fmt::format("measured AAT of {} ({}), fitted A + B ln(x - C)", algorithm, s.task)
                       : row.aat_source;
    c.why = fmt::format("AAT {:.3g} per {:.3g} ms step (verify {:.3g} ms, draft {:.3g} ms), {} regime", row.aat_at_best,
                        (row.t_verify_s + row.t_draft_s) * 1e3, row.t_verify_s * 1e3, row.t_draft_s * 1e3, row.regime);
    // The scenario plan ran (`optimize` is its command), on the device with its stack, with the
    // settings this run was given.
    c.reproduce = reproduce_command(s, fmt::format("optimize {} --algorithm {}{}{}", s.hw_args(s.target_device()), algorithm,
                                                   s.task != "govreport" ? " --task " + s.task : "",
                                                   scenario_flags("tree-sd", search::tree_sd::scenario().settings(p))));
    c.write_trace = r->table.write_trace;  // its step at the best x (the scenario's trace)
    out.push_back(std::move(c));
  }
  return out;
}

const PlanSchemeRegistration tree_sd_registration{{kScheme, kSummary, 20, run_tree_sd}};

}  // namespace
}  // namespace search::tree_sd_scheme
