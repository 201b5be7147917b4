// The pipeline baselines SpecPipe is compared with (specpipe_scenario.hpp): plain PP, the
// system's baseline stacks, tensor-parallel stacks on the system step, and SpecInfer's static
// tree verified per full pass.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "search/scenarios/specpipe/specpipe_scenario.hpp"
#include "sim/system/system_step.hpp"

namespace search::specpipe {

const std::vector<int>& specinfer_branching() {
  static const std::vector<int> b{1, 1, 3, 1, 1, 1, 1, 1};
  return b;
}

void set_tree_rates(ScenarioResult& r) {
  r.hit_rate = r.plan.hit_rate();
  long long rejected = 0;
  for (const auto& st : r.plan.steps) rejected += st.verify && !st.hit ? 1 : 0;
  r.flush_rate = r.plan.tokens ? double(rejected) / double(r.plan.tokens) : 0.0;
}

ScenarioResult run_plain_pp(const TimingSetup& setup, const StageTimer& timer, long long tokens,
                            int requests, const std::string& method) {
  ScenarioResult r;
  r.method = method;
  r.w = r.k = 1;
  r.batch = requests;
  r.plan = requests == 1 ? plan_plain_pp(timer.stages(), tokens) : plan_multibatch_pp(timer.stages(), requests, tokens);
  TimingSetup no_draft = setup;  // plain PP has no draft and prunes nothing
  no_draft.draft.reset();
  r.timed = time_plan(r.plan, no_draft, timer);
  return r;
}

std::vector<ScenarioResult> run_stack_baselines(const TimingSetup& setup, long long tokens, int requests) {
  std::vector<ScenarioResult> out;
  for (const auto& [method, stack] : setup.system.baseline_stacks) {
    TimingSetup s = setup;
    s.system = models::with_target_stack(setup.system, stack);
    const StageTimer timer(s);
    out.push_back(run_plain_pp(s, timer, tokens, requests, method));
  }
  return out;
}

std::vector<ScenarioResult> run_tp_stack_baselines(const TimingSetup& setup) {
  std::vector<ScenarioResult> out;
  for (const auto& [method, stack] : setup.system.baseline_tp_stacks) {
    models::SystemSpec sys = models::with_group_tensor_parallel(models::with_target_stack(setup.system, stack));
    sys.validate_placement(setup.target);
    sim::SystemQuery q;
    q.target = setup.target;
    q.x = 1;
    q.context = setup.context;
    q.task_names = setup.task_names;
    sim::SystemStep step = sim::simulate_system_step(sys, q, setup.engine);
    if (!step.feasible) continue;  // the regrouped placement does not fit: no baseline to compare with
    ScenarioResult r;
    r.method = method;
    r.w = r.k = 1;
    r.tree = fmt::format("TP {} x PP {}", sys.stages.front().devices.size(), sys.stages.size());
    auto& t = r.timed.tbt;
    t.mean_s = t.p50_s = t.p90_s = t.p99_s = step.step_s;
    t.tokens_per_s = step.step_s > 0 ? 1.0 / step.step_s : 0.0;
    t.samples = 1;
    r.timed.tokens_per_s_total = t.tokens_per_s;
    r.timed.mean_step_s = step.step_s;
    for (const auto& l : step.lanes) r.timed.link_bytes_per_step += l.bytes;
    for (const auto& st : sys.stages) {
      double busy = 0;
      for (int d : st.devices) busy = std::max(busy, step.devices[std::size_t(d)].busy_s);
      r.timed.stage_utilisation.push_back(step.step_s > 0 ? busy / step.step_s : 0.0);
    }
    // Its one step's timeline is the run's (every step is the same).
    r.timed.graph = std::move(step.graph);
    r.timed.run = std::move(step.run);
    out.push_back(std::move(r));
  }
  return out;
}

ScenarioResult run_static_tree(const TimingSetup& setup, const StageTimer& timer, long long tokens,
                               const RankModel& ranks, std::uint64_t seed, int requests) {
  ScenarioResult r;
  r.method = "pp+specinfer-tree";
  r.batch = requests;
  r.plan = plan_static_tree(timer.stages(), specinfer_branching(), tokens, ranks, seed, requests);
  r.w = 1;  // tokens per tree: the root and every level's nodes
  int level_nodes = 1;
  for (int b : specinfer_branching()) r.w += (level_nodes *= b);
  r.k = *std::max_element(specinfer_branching().begin(), specinfer_branching().end());
  r.timed = time_plan(r.plan, setup, timer);
  set_tree_rates(r);
  return r;
}

}  // namespace search::specpipe
