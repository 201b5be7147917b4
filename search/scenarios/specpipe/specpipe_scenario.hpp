#pragma once
// The SpecPipe scenario and its baselines, end to end: a plan (pipeline_plan.hpp) timed on the
// system timeline (specpipe_timeline.hpp), with paper 002's analytic E(T) beside the simulated
// TBT. Header-only for the same reason as specpipe_timeline.hpp (search does not link sim).
#include <fmt/ranges.h>

#include <optional>
#include <string>
#include <vector>

#include "search/trees/positional_trees.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_costs.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"
#include "search/scenarios/specpipe/eagle_pipeline.hpp"
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
  std::string method;   // "specpipe", "specpipe-db", "pp", "pp-vllm", "pp+specinfer-tree", "pp+eagle3"
  int w = 0, k = 0;     // tree width and candidates (specpipe); tokens per pass otherwise
  int batch = 1;        // requests decoded together
  std::string tree;     // the static tree's name (EAGLE-3: N<i>), empty otherwise
  PipelinePlan plan;
  TimedPlan timed;
  double hit_rate = 0;  // specpipe: levels holding the target's token; static tree: per-depth acceptance
  double flush_rate = 0;  // flushes per emitted token
  double e_eq1_s = 0, e_eq2_s = 0;  // paper 002 eq. (1), (2) (specpipe only)
  double e_mech_s = 0;              // the mechanism form (expected_tbt.hpp)
};

// Hit rate (per-depth acceptance) and rejections per emitted token of a static-tree run.
inline void set_tree_rates(ScenarioResult& r) {
  r.hit_rate = r.plan.hit_rate();
  long long rejected = 0;
  for (const auto& st : r.plan.steps) rejected += st.verify && !st.hit ? 1 : 0;
  r.flush_rate = r.plan.tokens ? double(rejected) / double(r.plan.tokens) : 0.0;
}

// SpecPipe; with several requests they take turns at stage 0 (plan_specpipe_interleaved), and
// E(T), a single-request formula, is still that of one request.
inline ScenarioResult run_specpipe(const TimingSetup& setup, const StageTimer& timer, const SpecPipeParams& p,
                                   const RankModel& ranks, int requests = 1) {
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

// SpecPipe-DB: `requests` SpecPipe requests packed into every step (dynamic batching).
inline ScenarioResult run_specpipe_db(const TimingSetup& setup, const StageTimer& timer, const SpecPipeParams& p,
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

// Plain pipeline parallelism: one token per full pass; with several requests, micro-batches
// cycle through the pipeline (plan_multibatch_pp).
inline ScenarioResult run_plain_pp(const TimingSetup& setup, const StageTimer& timer, long long tokens,
                                   int requests = 1, const std::string& method = "pp") {
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

// The system's baseline_stacks (e.g. PP-vLLM): plain PP on the same placement under each stack.
inline std::vector<ScenarioResult> run_stack_baselines(const TimingSetup& setup, long long tokens, int requests = 1) {
  std::vector<ScenarioResult> out;
  for (const auto& [method, stack] : setup.system.baseline_stacks) {
    TimingSetup s = setup;
    s.system = models::with_target_stack(setup.system, stack);
    const StageTimer timer(s);
    out.push_back(run_plain_pp(s, timer, tokens, requests, method));
  }
  return out;
}

// The system's baseline_tp_stacks (e.g. TP/PP-vLLM): plain PP of one request over tensor-parallel
// stages, one per device group. Every token takes the same pass at a fixed context, so one
// decode step on the system timeline (sim/system/system_step: TP slices, all-reduces, stage hops,
// the token's return) is the TBT.
inline std::vector<ScenarioResult> run_tp_stack_baselines(const TimingSetup& setup) {
  std::vector<ScenarioResult> out;
  for (const auto& [method, stack] : setup.system.baseline_tp_stacks) {
    models::SystemSpec sys = models::with_group_tensor_parallel(models::with_target_stack(setup.system, stack));
    sys.validate_placement(setup.target);
    sim::SystemQuery q;
    q.target = setup.target;
    q.x = 1;
    q.context = setup.context;
    q.engine = setup.engine;
    const sim::SystemStep step = sim::simulate_system_step(sys, q);
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
    out.push_back(std::move(r));
  }
  return out;
}

inline ScenarioResult run_static_tree(const TimingSetup& setup, const StageTimer& timer, long long tokens,
                                      const RankModel& ranks, std::uint64_t seed, int requests = 1) {
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

// EAGLE-3 in the pipeline with the static tree `tree` (eagle_pipeline.hpp); `setup.head` set.
inline ScenarioResult run_eagle_pipeline(const TimingSetup& setup, const StageTimer& timer, const std::string& tree_name,
                                         const TokenTree& tree, const PositionalAcceptance& acceptance,
                                         long long tokens, std::uint64_t seed, int requests = 1) {
  ScenarioResult r;
  r.method = "pp+eagle3";
  r.tree = tree_name;
  r.batch = requests;
  EaglePipelineParams p;
  p.stages = timer.stages();
  p.requests = requests;
  p.tokens = tokens;
  p.seed = seed;
  std::vector<int> last_layers;
  for (const auto& st : setup.system.stages) last_layers.push_back(st.last_layer);
  p.hop_payload_factor = hop_payload_factors(last_layers, eagle3_feature_layers(setup.target.layers));
  r.plan = plan_eagle_pipeline(p, tree, acceptance);
  r.w = tree.verification_length();
  r.k = tree.depth();
  r.timed = time_plan(r.plan, setup, timer);
  set_tree_rates(r);
  return r;
}

// Pruned trees N_i a head is tried with (paper 004's tree family; the lowest TBT is reported).
inline const std::vector<int>& eagle_pipeline_tree_sizes() {
  static const std::vector<int> n{1, 2, 4, 8, 16, 32, 64};
  return n;
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
  s.task_names = false;  // a caller that writes a trace turns them back on
  return s;
}

// Memory of the EAGLE-3 baseline: the target on the system's placement with the head (its
// weights and its per-layer KV cache) beside the last stage. The baseline is the paper's own
// EAGLE code (Hugging Face), whose KV cache grows with the sequence, so each request holds its
// context, the decoded tokens and the largest tree, not SpecPipe's preallocated pool
// (memory.kv_tokens). nullopt when every device fits, else "device D (roles): infeasible: ..." for the
// first that does not.
inline std::optional<std::string> eagle_baseline_memory_shortfall(const TimingSetup& s, long long tokens, int requests) {
  sim::MemoryQuery q;
  q.batch = requests;
  const int largest_tree = eagle_pipeline_tree_sizes().back() + 1;  // draft nodes + the root
  q.kv_tokens = s.context + tokens + largest_tree;
  q.step_tokens = largest_tree;
  q.lm_head_tokens = (long long)requests * largest_tree;  // the target verifies every tree token
  q.parameter_rule = s.system.memory.parameter_rule;
  auto mem = sim::system_memory(s.system, s.target, nullptr, q);
  const int last = s.system.stages.back().devices.front();
  auto& d = mem[std::size_t(last)];
  d.need += sim::draft_head_memory(*s.head, s.target, requests, q.kv_tokens);
  d.roles += " + EAGLE-3 head";
  for (const auto& m : mem)
    if (!m.fits()) return fmt::format("device {} ({}): {}", m.device, m.roles, sim::fit_status(m));
  return std::nullopt;
}

// The EAGLE-3 baseline of a setup: its head (configs/algorithms/eagle3-tree.yaml resized to the
// target, search::eagle_head_for_target) on the last stage's device, the target's paper 004
// positional acceptance, and the best pruned tree N_i by simulated mean TBT. nullopt (with
// `why` set) when the target has no EAGLE-3 acceptance model or the head does not fit memory.
inline std::optional<ScenarioResult> run_eagle_baseline(const models::ConfigRegistry& reg, const TimingSetup& setup,
                                                        long long tokens, std::uint64_t seed, int requests,
                                                        std::string* why = nullptr) {
  const auto models = paper004_models();
  if (std::find(models.begin(), models.end(), setup.target.name) == models.end()) {
    if (why) *why = fmt::format("no EAGLE-3 acceptance model for {} (paper 004 covers {})", setup.target.name,
                                fmt::join(models, ", "));
    return std::nullopt;
  }
  TimingSetup s = setup;
  s.head = eagle_head_for_target(reg.algorithm("eagle3-tree"), setup.target);
  if (const auto full = eagle_baseline_memory_shortfall(s, tokens, requests)) {
    if (why) *why = *full;
    return std::nullopt;
  }
  const StageTimer timer(s);
  const PositionalAcceptance acc = paper004_acceptance(setup.target.name);
  std::optional<ScenarioResult> best;
  for (int n : eagle_pipeline_tree_sizes()) {
    // Paper 004's pruned-tree family (the dispatcher's depth and branching bounds).
    const TokenTree tree = pruned_tree(acc, n, kMaxDraftDepth, kMaxDraftBranching);
    auto r = run_eagle_pipeline(s, timer, fmt::format("N{}", n), tree, acc, tokens, seed, requests);
    if (!best || r.timed.tbt.mean_s < best->timed.tbt.mean_s) best = std::move(r);
  }
  return best;
}

}  // namespace search::specpipe
