#pragma once
// The SpecPipe scenario and its baselines, end to end: a plan (pipeline_plan.hpp) timed on the
// system timeline (specpipe_timeline.hpp), with paper 002's analytic E(T) beside the simulated
// TBT. Header-only for the same reason as specpipe_timeline.hpp (search does not link sim).
#include <string>
#include <vector>

#include "search/scenarios/specpipe/expected_tbt.hpp"
#include "search/scenarios/specpipe/pipeline_plan.hpp"
#include "search/scenarios/specpipe/specpipe_timeline.hpp"

namespace search::specpipe {

// SpecInfer's static tree as paper 002 §4 configures it: 8 levels, branching <1,1,3,1,1,1,1,1>.
inline const std::vector<int>& specinfer_branching() {
  static const std::vector<int> b{1, 1, 3, 1, 1, 1, 1, 1};
  return b;
}

struct ScenarioResult {
  std::string method;   // "specpipe", "pp", "pp+specinfer-tree"
  int w = 0, k = 0;     // tree width and candidates (specpipe); tokens per pass otherwise
  PipelinePlan plan;
  TimedPlan timed;
  double hit_rate = 0;  // specpipe: levels holding the target's token; static tree: per-depth acceptance
  double flush_rate = 0;  // flushes per emitted token
  double e_eq1_s = 0, e_eq2_s = 0;  // paper 002 eq. (1), (2) (specpipe only)
  double e_mech_s = 0;              // the mechanism form (expected_tbt.hpp)
};

inline ScenarioResult run_specpipe(const TimingSetup& setup, const StageTimer& timer, const SpecPipeParams& p,
                                   const RankModel& ranks) {
  ScenarioResult r;
  r.method = "specpipe";
  r.w = p.width;
  r.k = p.candidates;
  r.plan = plan_specpipe(p, ranks);
  r.timed = time_plan(r.plan, setup, timer);
  r.hit_rate = r.plan.hit_rate();
  r.flush_rate = r.plan.tokens ? double(r.plan.flushes()) / double(r.plan.tokens) : 0.0;
  // E(T) with P(w) = the run's hit rate (a dynamic tree's P has no closed form here).
  const auto t = paper_step_times(setup, timer, p.width);
  const double tmax = *std::max_element(t.begin(), t.end());
  r.e_eq1_s = expected_tbt_eq1(t, r.hit_rate);
  r.e_eq2_s = expected_tbt_eq2(tmax, p.stages, r.hit_rate);
  const auto mt = mechanism_times(setup, timer, p.width);
  r.e_mech_s = expected_tbt_mechanism(mt.t_hit, mt.t_miss, r.hit_rate);
  return r;
}

inline ScenarioResult run_plain_pp(const TimingSetup& setup, const StageTimer& timer, long long tokens) {
  ScenarioResult r;
  r.method = "pp";
  r.w = r.k = 1;
  r.plan = plan_plain_pp(timer.stages(), tokens);
  TimingSetup no_draft = setup;  // plain PP has no draft and prunes nothing
  no_draft.draft.reset();
  r.timed = time_plan(r.plan, no_draft, timer);
  return r;
}

inline ScenarioResult run_static_tree(const TimingSetup& setup, const StageTimer& timer, long long tokens,
                                      const RankModel& ranks, std::uint64_t seed) {
  ScenarioResult r;
  r.method = "pp+specinfer-tree";
  r.plan = plan_static_tree(timer.stages(), specinfer_branching(), tokens, ranks, seed);
  r.w = r.plan.steps.front().compute.front();  // tokens per pass (root + tree nodes)
  r.k = *std::max_element(specinfer_branching().begin(), specinfer_branching().end());
  r.timed = time_plan(r.plan, setup, timer);
  r.hit_rate = r.plan.hit_rate();
  long long rejected = 0;
  for (const auto& st : r.plan.steps) rejected += st.verify && !st.hit ? 1 : 0;
  r.flush_rate = r.plan.tokens ? double(rejected) / double(r.plan.tokens) : 0.0;
  return r;
}

}  // namespace search::specpipe

#include "models/config_registry.hpp"

namespace search::specpipe {

// The default hit points: paper 002 Fig. 7's published values (configs/acceptance).
inline std::string default_hit_points(const models::ConfigRegistry& reg) {
  return reg.dir() + "/acceptance/specpipe_hit_points.csv";
}

// A timing setup from config names; the placement is validated for the target.
inline TimingSetup make_setup(const models::ConfigRegistry& reg, const std::string& system, const std::string& model,
                              const std::string& draft, const std::string& engine, long long context, double prune_s) {
  TimingSetup s;
  s.system = models::load_system(reg.path("systems", system), reg);
  s.target = reg.model(model);
  s.system.validate_placement(s.target);
  if (!draft.empty()) {
    if (s.system.draft_device < 0)
      throw models::InputError(fmt::format("{}: placement.draft: --draft given but the system places no draft",
                                           s.system.source_file));
    s.draft = reg.model(draft);
  }
  if (context < 0) throw models::InputError(fmt::format("--context: {} (must be >= 0)", context));
  if (!(prune_s >= 0) || !std::isfinite(prune_s))
    throw models::InputError(fmt::format("--prune-ms: {} (must be a finite number >= 0)", prune_s * 1e3));
  s.engine = engine;
  s.context = context;
  s.prune_s = prune_s;
  return s;
}

}  // namespace search::specpipe
