#pragma once
// The SpecPipe scenario and its baselines, end to end: a plan (pipeline_plan.hpp) timed on the
// system timeline (specpipe_timeline.hpp), with paper 002's analytic E(T) beside the simulated
// TBT. Declarations only (the search library links sim); the definitions, one concept a file:
// the SpecPipe runs (specpipe_runs.cpp), the pipeline baselines (plain PP, the system's stacks,
// tensor-parallel stacks, SpecInfer's static tree: pipeline_baselines.cpp), the EAGLE-3 pipeline
// baseline (eagle_baseline.cpp), setups from config names (specpipe_setup.cpp) and memory
// checks (specpipe_memory.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/config_registry.hpp"
#include "models/system_spec.hpp"
#include "search/acceptance/positional_acceptance.hpp"
#include "search/scenarios/specpipe/eagle_pipeline.hpp"
#include "search/scenarios/specpipe/expected_tbt.hpp"
#include "search/scenarios/specpipe/pipeline_plan.hpp"
#include "search/scenarios/specpipe/specpipe_timeline.hpp"
#include "search/trees/token_tree.hpp"

namespace search::specpipe {

// SpecInfer's static tree as paper 002 §4 configures it: 8 levels, branching <1,1,3,1,1,1,1,1>.
const std::vector<int>& specinfer_branching();

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

  // Frees the per-step plan and the timeline (graph and run), keeping every statistic above
  // and in `timed`: a grid of runs that only reports them need not hold ~10^4 tasks per run.
  void drop_steps() {
    plan.steps = {};
    timed.graph = sim::TaskGraph();
    timed.run = sim::TimelineRun();
  }
};

// Hit rate (per-depth acceptance) and rejections per emitted token of a static-tree run.
void set_tree_rates(ScenarioResult& r);

// SpecPipe; with several requests they take turns at stage 0 (plan_specpipe_interleaved), and
// E(T), a single-request formula, is still that of one request.
ScenarioResult run_specpipe(const TimingSetup& setup, const StageTimer& timer, const SpecPipeParams& p,
                            const RankModel& ranks, int requests = 1);

// SpecPipe-DB: `requests` SpecPipe requests packed into every step (dynamic batching).
ScenarioResult run_specpipe_db(const TimingSetup& setup, const StageTimer& timer, const SpecPipeParams& p,
                               int requests, const RankModel& ranks);

// Plain pipeline parallelism: one token per full pass; with several requests, micro-batches
// cycle through the pipeline (plan_multibatch_pp).
ScenarioResult run_plain_pp(const TimingSetup& setup, const StageTimer& timer, long long tokens, int requests = 1,
                            const std::string& method = "pp");

// The system's baseline_stacks (e.g. PP-vLLM): plain PP on the same placement under each stack.
std::vector<ScenarioResult> run_stack_baselines(const TimingSetup& setup, long long tokens, int requests = 1);

// The system's baseline_tp_stacks (e.g. TP/PP-vLLM): plain PP of one request over tensor-parallel
// stages, one per device group. Every token takes the same pass at a fixed context, so one
// decode step on the system timeline (sim/system/system_step: TP slices, all-reduces, stage hops,
// the token's return) is the TBT.
std::vector<ScenarioResult> run_tp_stack_baselines(const TimingSetup& setup);

// PP with SpecInfer's static tree (specinfer_branching) verified per full pass.
ScenarioResult run_static_tree(const TimingSetup& setup, const StageTimer& timer, long long tokens,
                               const RankModel& ranks, std::uint64_t seed, int requests = 1);

// EAGLE-3 in the pipeline with the static tree `tree` (eagle_pipeline.hpp); `setup.head` set.
ScenarioResult run_eagle_pipeline(const TimingSetup& setup, const StageTimer& timer, const std::string& tree_name,
                                  const TokenTree& tree, const PositionalAcceptance& acceptance, long long tokens,
                                  std::uint64_t seed, int requests = 1);

// The tree the EAGLE-3 baseline runs: EAGLE's public code as its evaluation runs it, as paper 002
// ran it (§4.1: "their open-source implementation and pre-trained weights"): the evaluation
// scripts' --total-token 60 (the root and 59 draft tokens), --depth 5, --top-k 10, passed to
// EaModel.from_pretrained (SafeAILab/EAGLE@12c417d, eagle/evaluation/gen_ea_answer_llama3chat.py;
// from_pretrained's own default depth, 7, applies only where a caller passes none), built as the
// best pruned tree under the acceptance model with those bounds (EAGLE's dynamic tree keeps the
// draft's most probable nodes). Not the best tree for the pipeline: the paper did not tune it.
struct EagleDefaultTree {
  static constexpr int total_tokens = 60, depth = 5, top_k = 10;
  static constexpr int draft_nodes = total_tokens - 1;
};

// The default hit points: paper 002 Fig. 7's published values (configs/acceptance).
std::string default_hit_points(const models::ConfigRegistry& reg);

// A timing setup from config names; the placement is validated for the target.
TimingSetup make_setup(const models::ConfigRegistry& reg, const std::string& system, const std::string& model,
                       const std::string& draft, const std::string& engine, long long context, double prune_s);

// Memory of the EAGLE-3 baseline: the target on the system's placement with the head (its
// weights and its per-layer KV cache) beside the last stage. The baseline is the paper's own
// EAGLE code (Hugging Face), whose KV cache grows with the sequence, so each request holds its
// context, the decoded tokens and the largest tree, not SpecPipe's preallocated pool
// (memory.kv_tokens). nullopt when every device fits, else "device D (roles): infeasible: ..." for the
// first that does not.
std::optional<std::string> eagle_baseline_memory_shortfall(const StageTimer& timer, long long tokens, int requests);

// The EAGLE-3 baseline's head (an algorithm config), resized to each target, and its method name
// (a key of the system's method_stacks: the stack EAGLE's public code runs under).
constexpr const char* kEagleBaselineHead = "eagle3-tree";
constexpr const char* kEagleBaselineMethod = models::kPipelineEagle3Method;

// The EAGLE-3 baseline of a setup: its head (configs/algorithms/eagle3-tree.yaml resized to the
// target, search::eagle_head_for_target) on the last stage's device, the target's paper 004
// positional acceptance, and EAGLE's default tree (EagleDefaultTree), under the system's
// method_stacks entry for it where there is one. nullopt (with
// `why` set) when the target has no EAGLE-3 acceptance model or the head does not fit memory.
std::optional<ScenarioResult> run_eagle_baseline(const models::ConfigRegistry& reg, const TimingSetup& setup,
                                                 long long tokens, std::uint64_t seed, int requests,
                                                 std::string* why = nullptr);

}  // namespace search::specpipe
