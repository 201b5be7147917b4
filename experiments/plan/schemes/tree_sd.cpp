// tree SD (paper 000): a drafter's token tree verified in one target pass, at the verification
// length x that maximises AAT(x) / (T_v + T_d), from the measured AAT of each algorithm that has
// measurements for the target and task (configs/acceptance/aat_measurements.csv), or with
// --acceptance BAND from the band's chains or best-first trees (the measured algorithms, or
// --algorithm),
// on the target's device. Runs the tree-sd scenario (as `specdse optimize`).
#include <fmt/format.h>

#include <set>

#include "experiments/plan/plan_scheme.hpp"
#include "models/config_error.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "sim/system/memory_fit.hpp"

namespace experiments::tree_sd_scheme {
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
    if (!s.acceptance.empty()) in.params.push_back("acceptance=" + s.acceptance);
    const auto r = run_candidate_scenario(s, "tree-sd", in, kScheme, where, out);
    if (!r) continue;
    const ResultRows rows(*r);
    PlanCandidate c(kScheme, where);
    const int x = int(rows.number(0, "best_x"));
    // The target's weights and the KV cache of the verified tree must fit beside each other.
    sim::MemoryQuery q;
    q.batch = s.batch;
    q.kv_tokens = s.context + x;
    q.step_tokens = x;
    const auto mem = sim::device_memory(dev.hardware, s.target, q);
    if (!mem.fits()) {
      c.status = sim::fit_status(mem) + " on " + dev.name;
      out.push_back(c);
      continue;
    }
    c.tbt_s = 1 / rows.number(0, "best_tokens_per_s");
    // The band's range (equal without one): TBT scales inversely with the speed-up over AD.
    const double speedup = rows.number(0, "speedup");
    c.tbt_low_s = c.tbt_s * speedup / rows.number(0, "speedup_high");
    c.tbt_high_s = c.tbt_s * speedup / rows.number(0, "speedup_low");
    c.parameters = fmt::format("x={}", x);
    c.draft_head = algorithm;
    c.draft_device = s.target_device();
    c.step_tokens = x;
    if (!rows.text(0, "at_search_limit").empty()) {
      c.parameters += " (" + rows.text(0, "at_search_limit") + ")";
      c.search_limit = rows.text(0, "at_search_limit");
    }
    c.acceptance = s.acceptance.empty()
                       ? fmt::format("measured AAT of {} ({}), fitted A + B ln(x - C)", algorithm, s.task)
                       : rows.text(0, "acceptance");
    c.why = fmt::format("AAT {:.3g} per {:.3g} ms step (verify {:.3g} ms, draft {:.3g} ms), {} regime",
                        rows.number(0, "aat_at_best"),
                        (rows.number(0, "t_verify_s") + rows.number(0, "t_draft_s")) * 1e3,
                        rows.number(0, "t_verify_s") * 1e3, rows.number(0, "t_draft_s") * 1e3,
                        rows.text(0, "regime"));
    // The scenario plan ran, on the device with its stack.
    c.reproduce = reproduce_command(s, fmt::format("scenario tree-sd {} --algorithm {}{}{}", s.hw_args(s.target_device()), algorithm,
                                                   s.task != "govreport" ? " --task " + s.task : "",
                                                   s.acceptance.empty() ? "" : " --param acceptance=" + s.acceptance));
    c.write_trace = r->write_trace;  // its step at the best x (the scenario's trace)
    out.push_back(std::move(c));
  }
  return out;
}

const PlanSchemeRegistration tree_sd_registration{{kScheme, kSummary, 20, run_tree_sd}};

}  // namespace
}  // namespace experiments::tree_sd_scheme
