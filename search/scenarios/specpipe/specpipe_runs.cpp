// The SpecPipe runs (specpipe_scenario.hpp): a SpecPipe plan, single-request, interleaved or
// dynamically batched, timed on the system timeline; single-request runs carry paper 002's E(T).
#include <algorithm>
#include <string>

#include "search/scenarios/specpipe/expected_tbt.hpp"
#include "search/scenarios/specpipe/specpipe_scenario.hpp"

namespace search::specpipe {

ScenarioResult run_specpipe(const TimingSetup& setup, const StageTimer& timer, const SpecPipeParams& p,
                            const RankModel& ranks, int requests) {
  ScenarioResult r;
  r.method = "specpipe";
  r.w = p.width;
  r.k = p.candidates;
  r.batch = requests;
  r.plan = requests == 1 ? plan_specpipe(p, ranks) : plan_specpipe_interleaved(p, requests, ranks);
  r.timed = time_plan(r.plan, setup, timer);
  r.hit_rate = r.plan.hit_rate();
  r.flush_rate = r.plan.tokens ? double(r.plan.flushes()) / double(r.plan.tokens) : 0.0;
  if (p.verification != Verification::greedy) r.method = std::string("specpipe/") + verification_name(p.verification);
  // E(T) with P(w) = the run's hit rate (a dynamic tree's P has no closed form here).
  const auto t = paper_step_times(setup, timer, p.width);
  const double tmax = *std::max_element(t.begin(), t.end());
  r.e_eq1_s = expected_tbt_eq1(t, r.hit_rate);
  r.e_eq2_s = expected_tbt_eq2(tmax, p.stages, r.hit_rate);
  const auto mt = mechanism_times(setup, timer, p.width);
  r.e_mech_s = expected_tbt_mechanism(mt.t_hit, mt.t_miss, r.hit_rate);
  return r;
}

ScenarioResult run_specpipe_db(const TimingSetup& setup, const StageTimer& timer, const SpecPipeParams& p,
                               int requests, const RankModel& ranks) {
  ScenarioResult r;
  r.method = "specpipe-db";
  r.w = p.width;
  r.k = p.candidates;
  r.batch = requests;
  r.plan = plan_specpipe_db(p, requests, ranks);
  r.timed = time_plan(r.plan, setup, timer);
  r.hit_rate = r.plan.hit_rate();
  r.flush_rate = r.plan.tokens ? double(r.plan.flushes()) / double(r.plan.tokens) : 0.0;
  return r;
}

}  // namespace search::specpipe
