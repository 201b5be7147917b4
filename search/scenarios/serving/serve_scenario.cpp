// `specdse serve` (and `specdse scenario serve`, `specdse.serve` in Python): one serving instance
// on one device under Poisson load, with and without speculative decoding, at each request rate:
// TTFT, time per output token and end-to-end percentiles, throughput, goodput under an SLO, and
// the rate from which speculation stops paying (serving_simulation.hpp; docs/serving.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/draft_compatibility.hpp"
#include "models/software_stack.hpp"
#include "models/system_spec.hpp"
#include "search/draft_placement.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_costs.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"
#include "search/scenarios/scenario.hpp"
#include "search/scenarios/serving/serving_dispatch.hpp"
#include "search/scenarios/serving/serving_scheduler.hpp"
#include "search/scenarios/serving/serving_simulation.hpp"
#include "search/scenarios/serving/serving_summary.hpp"
#include "search/scenarios/serving/serving_workload.hpp"
#include "search/scenarios/serving/specpipe_db_steps.hpp"
#include "search/work_bound.hpp"
#include "sim/system/memory_fit.hpp"
#include "sim/system/system_costs.hpp"
#include "sim/system/system_step.hpp"

namespace search::serving {
namespace {

constexpr double kGib = double(1ull << 30);
// The largest closed batch `--arrivals batch:B` runs (as many requests as a run of --requests).
constexpr long long kMaxClosedBatch = 10'000'000;
// vLLM V1's token budget a step when none is given: SchedulerConfig's default, and `vllm serve`'s on
// GPUs under 70 GiB and on A100s (vllm/engine/arg_utils.py EngineArgs.get_batch_defaults; recent
// versions give `vllm serve` 8192 tokens and 1024 sequences on larger GPUs: pass those to match).
constexpr long long kVllmV1DefaultTokenBudget = 2048;
// Speculation pays at a rate when its median time per output token is this much below plain
// decoding's; closer is a tie (the two runs draw different acceptance).
constexpr double kPaysBy = 0.01;
// The task of paper 000's EAGLE-3 chain and tree measurements a serving tree is calibrated on
// (configs/acceptance/aat_measurements.csv: GovReport is the one task measured for both).
constexpr const char* kTreeCalibrationTask = "govreport";
// The deployment's step times for the serving loop: the target's forwards and the EAGLE head's
// passes through the one cost layer (sim::SystemCosts: memoised by graph fingerprint, with an index
// by shape in front), so an hour of steps costs each distinct (batch, tokens, context bucket) once.
class DeploymentStepCosts {
 public:
  DeploymentStepCosts(const models::HardwareSpec& hw, const std::string& engine, const models::ModelSpec& target,
                      const models::AlgorithmSpec* head, const models::ModelSpec* draft = nullptr)
      : costs_(models::single_device_system(hw), engine) {
    target_ = costs_.add_model(target);
    if (head) {
      head_ = costs_.add_head(*head, target);
      head_spec_ = std::make_shared<const models::AlgorithmSpec>(*head);
    }
    if (draft) draft_ = costs_.add_model(*draft);
  }
  // A system of devices (a tensor- or pipeline-parallel target): each step is a whole system
  // step (sim::simulate_system_step through the deployment's memo: every stage's slice, the
  // collectives, the activations between stages, the head's passes over the first stage's group).
  // A standalone `draft` model runs on device `draft_device` of the system (one of the target's,
  // taking turns with it, or a device of its own); its tokens and their distributions go to the
  // target's first device and the verdict comes back from its last, over the system's routes.
  DeploymentStepCosts(const models::SystemSpec& system, const std::string& engine, const models::ModelSpec& target,
                      const models::AlgorithmSpec* head, const models::ModelSpec* draft = nullptr, int draft_device = -1)
      : costs_(system, engine), whole_system_(true) {
    query_.target = target;
    if (head) {
      query_.head = std::make_shared<const models::AlgorithmSpec>(*head);
      head_spec_ = query_.head;
    }
    if (draft) {
      draft_ = costs_.add_model(*draft);
      draft_vocab_ = draft->vocab_size;
      draft_device_ = draft_device;
      first_device_ = system.stages.front().devices.front();
      last_device_ = system.stages.back().devices.front();
      draft_apart_ = !system.holds_target(draft_device);
    }
  }
  // `with_drafter`: the speculative run's (a draft model prefills each prompt too); false: plain
  // decoding's, which loads no drafter.
  ServingStepCosts step_costs(bool with_drafter = true) const {
    ServingStepCosts s;
    if (whole_system_) {
      const int prefill_draft = with_drafter ? draft_ : -1;
      s.prefill_s = [this, prefill_draft](int requests, long long tokens) {
        const double target_s = costs_.system_step_times(prefill_query(requests, tokens)).step_s;
        if (prefill_draft < 0) return target_s;
        // A draft model prefills the prompt too: beside the target on a device of its own, after
        // it on one of the target's.
        return with_draft(target_s, costs_.forward_s(draft_device_, prefill_draft, prompt_shape(requests, tokens)));
      };
      // The pipeline's hold on its entry (ServingStepCosts' periods): the busiest stage's share of
      // the step; a draft model's work holds its own device, or the target's device it shares.
      s.prefill_period_s = [this, prefill_draft](int requests, long long tokens) {
        const double stage_s = costs_.system_step_times(prefill_query(requests, tokens)).stage_period_s;
        if (prefill_draft < 0) return stage_s;
        return with_draft(stage_s, costs_.forward_s(draft_device_, prefill_draft, prompt_shape(requests, tokens)));
      };
      s.decode_period_s = [this](int batch, int tokens, long long context, int draft_tokens) {
        const double stage_s = costs_.system_step_times(decode_query(batch, tokens, context, draft_tokens)).stage_period_s;
        if (draft_tokens <= 0 || draft_ < 0) return stage_s;
        return with_draft(stage_s, draft_model_s(batch, context, draft_tokens));
      };
      s.decode_s = [this](int batch, int tokens, long long context, int draft_tokens) {
        double t = costs_.system_step_times(decode_query(batch, tokens, context, draft_tokens)).step_s;
        // A draft model drafts a chain on its device, then its tokens cross to the target and the
        // verdict comes back: drafting and verifying take turns (speculative sampling's order).
        if (draft_tokens > 0 && draft_ >= 0) add_draft_model_s(t, batch, context, draft_tokens);
        return t;
      };
      return s;
    }
    const int prefill_draft = with_drafter ? draft_ : -1;
    s.prefill_s = [this, prefill_draft](int requests, long long tokens) {
      const models::StepShape shape = prompt_shape(requests, tokens);
      // A draft model prefills the prompt too, on the same GPU after the target.
      return costs_.forward_s(0, target_, shape) + (prefill_draft >= 0 ? costs_.forward_s(0, prefill_draft, shape) : 0.0);
    };
    s.decode_s = [this](int batch, int tokens, long long context, int draft_tokens) {
      models::StepShape shape;
      shape.tokens = tokens;
      shape.context = context;
      shape.batch = batch;
      double t = costs_.forward_s(0, target_, shape);
      // The EAGLE head's passes inside the step (a chain: one token per sequence per draft token).
      if (draft_tokens > 0 && head_ >= 0) {
        const std::vector<int> widths = head_spec_->draft_pass_widths(draft_tokens + 1);
        for (std::size_t i = 0; i < widths.size(); ++i)
          t += costs_.head_pass_s(0, head_, widths[i], batch, context + (long long)i);
      }
      if (draft_tokens > 0 && draft_ >= 0) t += draft_chain_s(0, batch, context, draft_tokens);
      return t;
    };
    return s;
  }
  long long evaluations() const { return costs_.evaluations(); }
  const sim::SystemCosts& costs() const { return costs_; }

 private:
  // A prompt's forward: `requests` prompts of `tokens` tokens, the first token's one logits row
  // left out (under 1 %).
  static models::StepShape prompt_shape(int requests, long long tokens) {
    models::StepShape shape;
    shape.tokens = int(tokens);
    shape.context = 0;
    shape.batch = requests;
    shape.include_lm_head = false;
    return shape;
  }
  // A prompt's prefill as a system query: `requests` prompts of `tokens` tokens, no head.
  sim::SystemQuery prefill_query(int requests, long long tokens) const {
    sim::SystemQuery q = query_;
    q.head.reset();
    q.x = int(tokens);
    q.batch = requests;
    q.context = 0;
    q.prefill = true;
    return q;
  }
  // The target's part of a step and a draft model's: side by side on a device of its own, one
  // after the other on one of the target's.
  double with_draft(double target_s, double draft_s) const {
    return draft_apart_ ? std::max(target_s, draft_s) : target_s + draft_s;
  }
  // A decode step's system query: the target verifies `tokens` per sequence, after the EAGLE head's
  // passes when it drafts (a chain's one token per sequence per draft token, a tree's first pass
  // and its expansions of the top-k frontier: AlgorithmSpec::draft_pass_widths).
  sim::SystemQuery decode_query(int batch, int tokens, long long context, int draft_tokens) const {
    sim::SystemQuery q = query_;
    q.x = tokens;
    q.batch = batch;
    q.context = context;
    if (draft_tokens > 0 && q.head) q.head_pass_widths = head_spec_->draft_pass_widths(draft_tokens + 1);
    else q.head.reset();
    return q;
  }
  // A draft model's part of a system's decode step: its chain on its device, its tokens to the
  // target's first device and the verdict back from the last, added to `t` term by term.
  void add_draft_model_s(double& t, int batch, long long context, int draft_tokens) const {
    t += draft_chain_s(draft_device_, batch, context, draft_tokens);
    t += costs_.transfer_s(draft_device_, first_device_,
                           double(batch) * search::draft_to_target_bytes(draft_tokens, draft_vocab_));
    t += costs_.transfer_s(last_device_, draft_device_, double(batch) * search::verdict_bytes(draft_tokens + 1));
  }
  double draft_model_s(int batch, long long context, int draft_tokens) const {
    double t = 0;
    add_draft_model_s(t, batch, context, draft_tokens);
    return t;
  }
  // A draft model drafting a chain on `device`: one forward of one token per sequence per draft token.
  double draft_chain_s(int device, int batch, long long context, int draft_tokens) const {
    double t = 0;
    for (int i = 0; i < draft_tokens; ++i) {
      models::StepShape d;
      d.tokens = 1;
      d.context = context + i;
      d.batch = batch;
      t += costs_.forward_s(device, draft_, d);
    }
    return t;
  }

  sim::SystemCosts costs_;
  int target_ = 0, head_ = -1, draft_ = -1;
  std::shared_ptr<const models::AlgorithmSpec> head_spec_;  // the EAGLE head: its passes' widths
  bool whole_system_ = false;
  // A draft model on a system: its device, its vocabulary (the bytes of its distributions), the
  // target's first and last devices, and whether it has a device of its own.
  int draft_vocab_ = 0, draft_device_ = -1, first_device_ = -1, last_device_ = -1;
  bool draft_apart_ = false;
  sim::SystemQuery query_;
};

// Tokens of KV cache the deployment holds beside the target's weights, its runtime and the largest
// step's activations (sim/system/memory_fit.hpp's accounting) and a draft head (its weights, and its
// own layer's KV in each token's share, as vLLM V1 gives the head's layer blocks from the same
// pool), sharded with the first stage's tensor-parallel group: on a system, the least over its
// devices of each one's free bytes over its share of a token's KV.
// `token_bytes` (when given): the most bytes of one token's KV any device holds.
long long kv_capacity_tokens(const sim::SystemCosts& deployment, const models::ModelSpec& target, int max_num_seqs,
                             int verify, const models::AlgorithmSpec* head, const models::ModelSpec* draft = nullptr,
                             double* token_bytes = nullptr, std::optional<int> draft_device = std::nullopt) {
  sim::MemoryQuery q;
  q.batch = max_num_seqs;
  q.step_tokens = verify;
  q.kv_tokens = 0;
  // One GPU holds the whole target (and a draft model beside it); a system, its devices' shares.
  const bool one_device = deployment.system().devices.size() == 1;
  sim::DraftHead on_first_stage;
  on_first_stage.algorithm = head;
  on_first_stage.shard_with_first_stage = true;
  auto memory = [&](const sim::MemoryQuery& m) {
    return deployment.memory(target, draft, m, one_device ? std::optional<int>(0) : draft_device, on_first_stage);
  };
  const std::vector<sim::DeviceMemory> without = memory(q);
  // One more KV token per sequence of the batch: each device's share of a token's KV (a draft
  // model's own KV included).
  sim::MemoryQuery one = q;
  one.kv_tokens = 1;
  const std::vector<sim::DeviceMemory> with = memory(one);
  long long tokens = std::numeric_limits<long long>::max();
  for (std::size_t d = 0; d < without.size(); ++d) {
    const double per_token = (with[d].need.kv_bytes - without[d].need.kv_bytes) / double(max_num_seqs);
    if (per_token <= 0) continue;  // a device without target layers holds no KV cache
    if (token_bytes) *token_bytes = std::max(*token_bytes, per_token);
    if (without[d].capacity_bytes <= 0) {
      // A device that holds only a draft model and states no capacity (a host CPU) does not bound
      // the cache (its fit is unchecked, as everywhere); one with target layers must state one.
      if (!deployment.system().holds_target(int(d))) continue;
      throw models::InputError(
          fmt::format("serve: {} states no memory capacity: the KV cache cannot be sized", without[d].device));
    }
    const double free_bytes = without[d].capacity_bytes - without[d].need.total();
    if (free_bytes <= 0)
      throw models::InputError(fmt::format("serve: infeasible: {} needs {:.3g} GiB before any KV cache, of {:.3g} GiB "
                                           "on {} (weights, runtime and the activations of the largest step: {} "
                                           "sequences of {} tokens; a smaller --max-num-seqs shrinks those)",
                                           target.name, without[d].need.total() / kGib,
                                           without[d].capacity_bytes / kGib, without[d].device, max_num_seqs, verify));
    tokens = std::min(tokens, (long long)(free_bytes / per_token));
  }
  if (tokens == std::numeric_limits<long long>::max())
    throw models::InputError(fmt::format("serve: {} holds no KV cache on any device", target.name));
  return tokens;
}

// Yield levels of a chain, as the presets': yield 16 stands for 16 or more.
constexpr int kYieldLevels = 16;

// Yields from published per-position acceptance p_1..p_n (positions independent): a step keeps
// its accepted run and the bonus, P(yield = j) = p_1 ... p_(j-1) (1 - p_j) for j <= n, and
// yield n + 1 holds the rest (n + 1 or more: a chain of at most n draft tokens never sees beyond).
YieldChain position_yields(const std::vector<double>& acceptance) {
  const int n = std::min<int>(int(acceptance.size()), kYieldLevels - 1);
  YieldChain c;
  c.first.assign(kYieldLevels, 0.0);
  double p = 1;
  for (int j = 0; j < n; ++j) {
    c.first[std::size_t(j)] = p * (1 - acceptance[std::size_t(j)]);
    p *= acceptance[std::size_t(j)];
  }
  c.first[std::size_t(n)] = p;
  for (int j = 0; j < kYieldLevels; ++j) c.mean_yield += double(j + 1) * c.first[std::size_t(j)];
  c.marginal = c.first;
  c.transitions.assign(kYieldLevels, c.first);
  return c;
}

// A draft model's yields at per-token acceptance `alpha`, positions independent: the yields of
// `alpha` at every position a chain reaches (yield 16 stands for 16 or more).
YieldChain geometric_yields(double alpha) { return position_yields(std::vector<double>(kYieldLevels - 1, alpha)); }

// "draft position 1" / "draft positions 1-n".
std::string positions_words(std::size_t n) {
  return n == 1 ? std::string("draft position 1") : fmt::format("draft positions 1-{}", n);
}

// The MTP modules shipped for `target` (an algorithm of draft type mtp naming it), or an
// InputError listing the targets that have some.
models::AlgorithmSpec mtp_head_for(const models::ConfigRegistry& configs, const models::ModelSpec& target) {
  std::vector<std::string> others;
  for (const auto& name : configs.names("algorithms")) {
    models::AlgorithmSpec a = configs.algorithm(name);
    if (a.draft.kind != "mtp") continue;
    if (a.draft.mtp_target == target.name) return a;
    others.push_back(fmt::format("{} ({})", a.draft.mtp_target, name));
  }
  throw models::InputError(fmt::format(
      "serve: --method mtp drafts with the target's own multi-token-prediction modules; configs/algorithms has none "
      "for {} (an algorithm with draft.type mtp and draft.target {}); models with some: {}",
      target.name, target.name, others.empty() ? std::string("none") : fmt::format("{}", fmt::join(others, ", "))));
}

// The workload preset's acceptance a method draws from (its key in configs/serving/*.yaml).
std::string acceptance_key(const std::string& method) {
  return method == "eagle3-chain" || method == "eagle3-tree" ? "eagle3" : method;
}

// Draft tokens a chain's step proposes at most: the presets' yields stop at 16 (a yield of 16
// stands for 16 or more), so a longer chain's gain is not measured.
constexpr int kMaxChainDraftTokens = 15;
// SpecPipe-DB's defaults, paper 002 §4.1's choice: w = 64 nodes per level, k = 16 candidates.
constexpr int kPaper002Width = 64, kPaper002Candidates = 16;

struct RateSummary {
  double tpot_p50 = 0, goodput = 0, tokens_per_s = 0;
  bool overloaded = false;
};

// Whether speculation pays at one rate: where both runs keep up, its median time per output
// token at least kPaysBy below plain decoding's (closer is a tie: the two runs draw different
// acceptance); where only one keeps up, that one; where both queues grow (their percentiles then
// depend on the run's length), the one that delivers more tokens a second, by kPaysBy.
bool speculation_pays(const RateSummary& sd, const RateSummary& plain) {
  if (sd.overloaded != plain.overloaded) return !sd.overloaded;
  if (sd.overloaded) return sd.tokens_per_s > (1 + kPaysBy) * plain.tokens_per_s;
  return sd.tpot_p50 <= (1 - kPaysBy) * plain.tpot_p50;
}

ScenarioResult run_serve(const ScenarioContext& ctx) {
  const std::string system_name = ctx.text("system");
  if ((ctx.hw != nullptr) == !system_name.empty())
    throw models::InputError("serve: give exactly one of --hw (one GPU) and --system (a tensor- or pipeline-parallel "
                             "target)");
  ctx.require(ctx.workload != nullptr, "--model");
  ctx.require(ctx.configs != nullptr, "the config registry");
  if (ctx.hw && !ctx.hw->runs_gpu_serving_stacks())
    throw models::InputError(fmt::format("serve: --hw {} is a {} device; the serving simulator models a GPU serving "
                                         "engine (kind gpu)", ctx.hw->name, ctx.hw->kind));
  std::optional<models::SystemSpec> system;
  if (!system_name.empty()) {
    system = models::load_system(ctx.configs->path("systems", system_name), *ctx.configs);
    system->validate_placement(ctx.workload->target);  // the stages' layer ranges for this target
    for (const auto& stage : system->stages)
      for (int d : stage.devices)
        if (!system->devices[std::size_t(d)].hardware.runs_gpu_serving_stacks())
          throw models::InputError(fmt::format(
              "serve: system {}: device {} holds target layers and is a {} device; the serving simulator models a "
              "GPU serving engine (kind gpu)",
              system->name, system->devices[std::size_t(d)].name, system->devices[std::size_t(d)].hardware.kind));
    if (ctx.was_given("stack"))
      throw models::InputError(fmt::format("serve: --stack with --system: the system's file names each device's stack "
                                           "({})", system->name));
  }
  const ServingWorkload workload = load_serving_workload(ctx.text("workload"), ctx.configs->dir());
  const models::ModelSpec& target = ctx.workload->target;
  const std::string method = ctx.text("method");
  // The workload's acceptance was measured for its own target: another target borrows it, and says so.
  std::string borrowed =
      method != "none" && method != "draft-model" && method != "mtp" && method != "specpipe-db" &&
              target.name != workload.target
          ? fmt::format("acceptance measured for {}, not {}", workload.target, target.name)
          : std::string();
  // What the footer names: the GPU and its stack, or the system and its lead device's stack.
  models::HardwareSpec hw =
      system ? system->devices[std::size_t(system->stages.front().devices.front())].hardware : *ctx.hw;
  // The stack a serving engine runs: --stack, else the kind's default (vLLM with CUDA graphs).
  if (!system && !ctx.was_given("stack") && hw.stack.name == "bare" && !hw.default_stack().empty())
    hw.stack = models::load_software_stack(ctx.configs->path("stacks", hw.default_stack()));
  const std::string where = system ? system->name : hw.name;
  std::unique_ptr<models::AlgorithmSpec> head;
  std::optional<models::ModelSpec> draft;
  ServingWorkload acceptance_source = workload;
  if (method == "draft-model") {
    // A standalone draft model on the target's GPU, at the per-token acceptance the user states
    // (no measured trace exists for an arbitrary pair): independent positions, a geometric yield.
    if (ctx.text("draft").empty() || !ctx.was_given("alpha"))
      throw models::InputError("serve: --method draft-model needs --draft MODEL and --alpha A (its per-token "
                               "acceptance: no measured trace exists for an arbitrary draft pair)");
    draft = ctx.configs->model(ctx.text("draft"));
    models::require_can_draft(*draft, target, "serve: --draft");
    acceptance_source.acceptance["draft-model"] = geometric_yields(ctx.real("alpha"));
  } else if (method == "specpipe-db") {
    // SpecPipe's draft on the system's draft device, at its acceptance (specpipe_db_steps.hpp).
    if (!system || ctx.text("draft").empty())
      throw models::InputError("serve: --method specpipe-db needs --system (a pipeline) and --draft MODEL (on the "
                               "system's draft device, placement.draft)");
    if (ctx.was_given("alpha") || ctx.was_given("draft-device"))
      throw models::InputError("serve: --method specpipe-db draws its hits from SpecPipe's acceptance on the system's "
                               "placement.draft device: --alpha and --draft-device are --method draft-model's");
    draft = ctx.configs->model(ctx.text("draft"));
  } else if (method == "mtp") {
    if (ctx.was_given("draft"))
      throw models::InputError("serve: --draft names --method draft-model's draft; --method mtp drafts with the "
                               "target's own modules");
  } else if (ctx.was_given("draft") || ctx.was_given("alpha")) {
    throw models::InputError(fmt::format("serve: --draft and --alpha describe --method draft-model (and --alpha "
                                         "--method mtp), not {}", method));
  }
  // Where a draft model runs on a system: --draft-device, else the system's placement.draft, else
  // the target's first device.
  int draft_device = -1;
  if (!ctx.text("draft-device").empty()) {
    if (!system || method != "draft-model")
      throw models::InputError("serve: --draft-device places --method draft-model's draft on a device of --system");
    draft_device = system->device_index(ctx.text("draft-device"));
    if (draft_device < 0)
      throw models::InputError(fmt::format("serve: --draft-device: system {} has no device '{}'", system->name,
                                           ctx.text("draft-device")));
  } else if (system && draft) {
    draft_device = system->draft_or_lead_device();
  }
  if (method == "eagle3-chain" || method == "eagle3-tree") {
    // The algorithm of the same name (EAGLE-3's head drafting a chain or EAGLE's dynamic tree),
    // shaped for the target as paper 004 trains one per target; the preset's yields were measured
    // with EAGLE-3 drafting chains.
    head = std::make_unique<models::AlgorithmSpec>(eagle_head_for_target(ctx.configs->algorithm(method), target));
  }
  // SpecPipe-DB's k is its candidates per node: paper 002 §4.1's k = 16 unless given.
  const int k = method == "specpipe-db" && !ctx.was_given("k") ? kPaper002Candidates : int(ctx.integer("k"));
  if (ctx.was_given("w") && method != "specpipe-db")
    throw models::InputError(fmt::format("serve: --w is SpecPipe-DB's tree width (--method specpipe-db), not {}'s", method));
  std::optional<SpecPipeDbSteps> specpipe;
  if (method == "specpipe-db")
    specpipe = specpipe_db_steps(*ctx.configs, system_name, target, draft->name, ctx.text("engine"),
                                 int(ctx.integer("w")), k, std::uint64_t(ctx.integer("seed")));
  if (specpipe && !specpipe->borrowed.empty()) borrowed = specpipe->borrowed;
  // MTP: the target's own modules, at their published per-position acceptance (or --alpha for
  // every position, the user's assumption, where a chain drafts past what is published).
  std::string mtp_words;
  if (method == "mtp") {
    head = std::make_unique<models::AlgorithmSpec>(eagle_head_for_target(mtp_head_for(*ctx.configs, target), target));
    const auto& published = head->draft.mtp_acceptance;
    if (ctx.was_given("alpha")) {
      acceptance_source.acceptance["mtp"] = geometric_yields(ctx.real("alpha"));
      mtp_words = fmt::format("mtp: {} ({} modules), every draft position accepted with --alpha {:g} independently "
                              "(published for {}: {:g}, {})",
                              head->name, head->draft.mtp_modules, ctx.real("alpha"), positions_words(published.size()),
                              fmt::join(published, ", "), head->draft.mtp_acceptance_source);
    } else {
      if (std::size_t(k) > published.size())
        throw models::InputError(fmt::format(
            "serve: --k {}: {}'s acceptance is published for {} draft position{} ({}); a longer chain needs --alpha "
            "(an assumed per-position acceptance) or --k {}",
            k, head->name, published.size(), published.size() > 1 ? "s" : "", head->draft.mtp_acceptance_source,
            published.size()));
      acceptance_source.acceptance["mtp"] = position_yields(published);
      mtp_words = fmt::format("mtp: {} ({} modules, each pass one module of the target's layer shape and the target's "
                              "output head), acceptance {:g} at {} as published ({}), positions independent",
                              head->name, head->draft.mtp_modules, fmt::join(published, ", "),
                              positions_words(published.size()), head->draft.mtp_acceptance_source);
    }
  }
  if (method != "eagle3-tree" && method != "specpipe-db" && k > kMaxChainDraftTokens)
    throw models::InputError(fmt::format("--k {}: a chain drafts at most {} tokens (the presets' yields stop at {}); "
                                         "larger --k is for --method eagle3-tree (draft nodes)",
                                         k, kMaxChainDraftTokens, kMaxChainDraftTokens + 1));
  // A tree: per k of 0..--k, its depth and its recovery of a chain's miss, calibrated on paper
  // 000's measured AAT of the same head as a chain and as a tree (eagle_tree_recovery.hpp).
  std::vector<TreeStep> tree_by_k;
  std::string tree_words;
  if (method == "eagle3-tree") {
    if (k + 1 > head->max_x)
      throw models::InputError(fmt::format("--k {}: {} has trees of up to {} draft nodes", k, head->name, head->max_x - 1));
    const AcceptanceData data = AcceptanceData::load(ctx.configs->dir() + "/acceptance/aat_measurements.csv");
    tree_by_k.push_back(TreeStep{});
    const auto calibrations =
        calibrate_tree_recoveries(data, *head, "eagle3-chain", workload.target, kTreeCalibrationTask, k);
    for (const auto& c : calibrations) tree_by_k.push_back(c.step);
    const TreeCalibration& at_k = calibrations.back();
    tree_words = fmt::format(
        "tree: {} of {} draft nodes, depth {}; where the preset's chain misses within the depth the tree holds the "
        "target's token with probability {:.3f} (median over contexts {}, {:.3f}-{:.3f}, of the recovery that turns "
        "paper 000's measured chain AAT into its measured tree AAT at {} nodes: {} and eagle3-chain, {} on {})",
        head->name, k, at_k.step.depth, at_k.step.recovery, fmt::join(at_k.contexts, ", "), at_k.recovery_low,
        at_k.recovery_high, at_k.measured_nodes, head->name, workload.target, kTreeCalibrationTask);
  }
  const std::string engine = ctx.text("engine");
  const DeploymentStepCosts deployment = system ? DeploymentStepCosts(*system, engine, target, head.get(),
                                                                      draft ? &*draft : nullptr, draft_device)
                                                : DeploymentStepCosts(hw, engine, target, head.get(),
                                                                      draft ? &*draft : nullptr);
  ServingConfig base;
  base.duration_s = ctx.real("duration-s");
  base.max_requests = ctx.integer("requests");
  base.k = k;
  base.tree_by_k = tree_by_k;
  base.sd_off_above_batch = int(ctx.integer("sd-off-above"));
  base.dispatch = ctx.text("dispatch");
  dispatch_policy(base.dispatch);  // an unknown name: the registered ones listed
  // How speculation is dispatched means nothing without speculation.
  if (method == "none" || method == "specpipe-db")
    for (const char* key : {"dispatch", "sd-off-above"})
      if (ctx.was_given(key))
        throw models::InputError(fmt::format("--{} sets how a chain or tree is dispatched per step; --method {} {}",
                                             key, method, method == "none" ? "speculates not at all"
                                                                           : "runs SpecPipe's tree in every step"));
  // A pipeline keeps one step per stage in flight (vLLM V0's virtual engines), unless told fewer.
  const int stages = system ? int(system->stages.size()) : 1;
  base.virtual_engines = ctx.integer("virtual-engines") > 0 ? int(ctx.integer("virtual-engines")) : stages;
  if (base.virtual_engines > stages)
    throw models::InputError(fmt::format(
        "--virtual-engines {}: {} runs {} pipeline stage{}, and a pipeline keeps at most one step per stage in flight "
        "(vLLM's virtual engines); give 1-{}", base.virtual_engines, where, stages, stages > 1 ? "s" : "", stages));
  base.max_num_seqs = int(ctx.integer("max-num-seqs"));
  base.max_batched_tokens = ctx.integer("max-batched-tokens");
  base.block_tokens = int(ctx.integer("block-tokens"));
  // The scheduler: V0's by default; a --chunked-prefill-tokens budget alone chooses V1's (0, the
  // option's default, keeps V0), and --scheduler vllm-v1 alone runs vLLM's default budget.
  const bool budget_given = ctx.integer("chunked-prefill-tokens") > 0;
  base.scheduler = ctx.was_given("scheduler") || !budget_given ? ctx.text("scheduler") : "vllm-v1";
  base.chunked_prefill_tokens = ctx.integer("chunked-prefill-tokens");
  if (base.scheduler == "vllm-v1" && !budget_given) {
    if (ctx.was_given("chunked-prefill-tokens"))
      throw models::InputError("serve: --scheduler vllm-v1 takes a token budget a step: --chunked-prefill-tokens at "
                               "least --max-num-seqs, not 0");
    base.chunked_prefill_tokens = kVllmV1DefaultTokenBudget;
    if (base.chunked_prefill_tokens < base.max_num_seqs)
      throw models::InputError(fmt::format("serve: --scheduler vllm-v1 runs vLLM's default budget of {} tokens a step, "
                                           "below --max-num-seqs {} (a step holds a token per running sequence): "
                                           "give --chunked-prefill-tokens", base.chunked_prefill_tokens,
                                           base.max_num_seqs));
  }
  if (base.chunked_prefill_tokens > 0 && ctx.was_given("max-batched-tokens"))
    throw models::InputError("serve: --max-batched-tokens bounds V0's prefill steps; V1's scheduler takes "
                             "--chunked-prefill-tokens a step: give one");
  base.swap_preemption = ctx.text("preemption") == "swap";  // its link and swap space are read below
  {
    // The scheduler refuses what it cannot run before any run starts (an unknown name lists the
    // registered ones): the options as every run of this command has them.
    ServingConfig probe = base;
    if (specpipe) {
      probe.method = "specpipe-db";
      probe.specpipe = specpipe->trees;
    }
    make_serving_scheduler(base.scheduler)->validate(probe, ServingStepCosts{});
  }
  base.seed = std::uint64_t(ctx.integer("seed"));
  // Per-request acceptance traces replayed (acceptance_trace.hpp): every run's lengths, and the
  // chain method's yields, from the file; --trace-record keeps one record (one prompt, repeated).
  std::string replay_words;
  const std::string acceptance_trace = ctx.text("acceptance-trace");
  if (ctx.was_given("trace-record") && acceptance_trace.empty())
    throw models::InputError("serve: --trace-record picks a record of --acceptance-trace: give the file too");
  if (!acceptance_trace.empty()) {
    if (method != "eagle3-chain" && method != "ngram")
      throw models::InputError(fmt::format("serve: --acceptance-trace replays EAGLE-3 or n-gram chains (--method "
                                           "eagle3-chain or ngram), not --method {}", method));
    base.replay = read_acceptance_trace(acceptance_trace, acceptance_key(method));
    const std::size_t records = base.replay.size();
    if (ctx.was_given("trace-record")) {
      const long long pick = ctx.integer("trace-record");
      if (pick >= (long long)records)
        throw models::InputError(fmt::format("--trace-record {}: {} holds records 0-{}", pick, acceptance_trace,
                                             records - 1));
      base.replay = {base.replay[std::size_t(pick)]};
    }
    replay_words = fmt::format(
        "acceptance replayed from {} ({}): request i takes record i mod {}: its prompt and output lengths and its "
        "measured yield at each output position (a step keeps min(yield, k + 1)); the workload's lengths and chain "
        "unused{}",
        acceptance_trace,
        ctx.was_given("trace-record") ? fmt::format("record {} of {}", ctx.integer("trace-record"), records)
                                      : fmt::format("{} records", records),
        base.replay.size(), method == "ngram" ? fmt::format(" (n-gram: a yield-1 position found a match with the "
                                                            "workload's probability {:g})",
                                                            workload.acceptance.at("ngram").match_probability)
                                              : std::string());
    borrowed.clear();  // the file's own measurements, not the preset's
  }
  double kv_token_bytes = 0;
  // The largest step's tokens per sequence: SpecPipe-DB's busiest stage, else a verify of k + 1.
  const int step_tokens = specpipe ? specpipe->trees.level_tokens : base.k + 1;
  base.kv_capacity_tokens = kv_capacity_tokens(deployment.costs(), target, base.max_num_seqs, step_tokens, head.get(),
                                               draft ? &*draft : nullptr, &kv_token_bytes,
                                               draft_device >= 0 ? std::optional<int>(draft_device) : std::nullopt);
  // Swap preemption (vLLM V0): a CPU swap space per GPU of --swap-space-gib, KV copied over the
  // GPU's host link, each device its own share in parallel.
  std::optional<models::LinkSpec> swap_link;
  if (base.swap_preemption) {
    if (ctx.text("swap-link").empty())
      throw models::InputError("serve: --preemption swap copies KV between each GPU and the CPU: name the GPU's host "
                               "link with --swap-link (configs/links/, e.g. pcie5-x16 for an H100 SXM)");
    swap_link = models::load_link(ctx.configs->path("links", ctx.text("swap-link")));
    // A GPU reaches its host's memory over PCIe (or a CPU-GPU NVLink), not a network link.
    if (swap_link->kind == models::LinkKind::ethernet)
      throw models::InputError(fmt::format("serve: --swap-link {}: a {} link; a GPU's host link is pcie (or nvlink)",
                                           swap_link->name, models::to_string(swap_link->kind)));
    base.swap_space_tokens = (long long)(ctx.real("swap-space-gib") * kGib / kv_token_bytes);
  } else if (ctx.was_given("swap-link") || ctx.was_given("swap-space-gib")) {
    throw models::InputError("serve: --swap-link and --swap-space-gib describe --preemption swap");
  }
  // Plain decoding is deployed without the drafter: its cache takes that room too.
  const long long plain_kv_capacity_tokens =
      method == "none" ? base.kv_capacity_tokens
                       : kv_capacity_tokens(deployment.costs(), target, base.max_num_seqs, 1, nullptr, nullptr);
  // Arrivals: Poisson, gamma with a coefficient of variation, or a trace file.
  const std::string arrivals = ctx.text("arrivals");
  std::string arrivals_words = "Poisson arrivals";
  if (arrivals.rfind("gamma:", 0) == 0) {
    std::size_t used = 0;
    double cv = 0;
    try {
      cv = std::stod(arrivals.substr(6), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != arrivals.size() - 6 || !(cv >= 0.05 && cv <= 20))
      throw models::InputError(fmt::format("--arrivals: expected poisson, gamma:CV (CV in [0.05, 20]) or a CSV path, got '{}'",
                                           arrivals));
    base.arrival_cv = cv;
    arrivals_words = fmt::format("gamma arrivals (CV {:g})", cv);
  } else if (arrivals.rfind("batch:", 0) == 0) {
    long long b = 0;
    std::size_t used = 0;
    try {
      b = std::stoll(arrivals.substr(6), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != arrivals.size() - 6 || b < 1 || b > kMaxClosedBatch)
      throw models::InputError(fmt::format("--arrivals: expected batch:B with B in [1, {}], got '{}'", kMaxClosedBatch,
                                           arrivals));
    for (const char* flag : {"rate", "requests", "duration-s"})
      if (ctx.was_given(flag))
        throw models::InputError(fmt::format("--{} and --arrivals batch:B: a closed batch is B requests at time 0, "
                                             "with no rate, count or window of arrivals; give one", flag));
    base.closed_batch = b;
    arrivals_words = fmt::format("a closed batch of {} requests at time 0 (rate_per_s: the batch over its makespan)", b);
  } else if (arrivals != "poisson") {
    base.trace = read_arrival_trace(arrivals);
    arrivals_words = fmt::format("arrivals and lengths from {} ({} requests; --rate ignored)", arrivals, base.trace.size());
    if (ctx.was_given("rate"))
      throw models::InputError("--rate and an arrival trace: the trace's arrival times give the load; give one");
  }
  const double trace_window_s = ctx.real("trace-window-s");
  if (ctx.was_given("trace-window-s") && !ctx.want_trace)
    throw models::InputError("--trace-window-s sets the window of the timeline trace: give --trace-out (or --report) too");
  const double ttft_slo_s = ctx.real("ttft-slo-ms") * 1e-3, tpot_slo_s = ctx.real("tpot-slo-ms") * 1e-3;
  auto step_costs = deployment.step_costs(), plain_step_costs = deployment.step_costs(false);
  if (specpipe) {
    // A SpecPipe-DB step is one pipeline step of every running request (specpipe_db_steps.hpp);
    // the prefill stays the deployment's (the target's pass and the draft's beside it).
    step_costs.decode_s = [steps = specpipe->step_s](int batch, int, long long context, int) {
      return steps(batch, context);
    };
    step_costs.decode_period_s = nullptr;
  }
  if (swap_link) {
    // One message per copy of the batch's blocks (vLLM's cache engine copies them in one call per layer;
    // the link's per-message cost is paid once here: an under-estimate for many layers).
    auto swap = [link = *swap_link, kv_token_bytes](long long tokens) { return link.transfer_s(double(tokens) * kv_token_bytes); };
    step_costs.swap_s = swap;
    plain_step_costs.swap_s = swap;
  }

  ScenarioResult r;
  r.columns = {"rate_per_s", "method", "k", "requests", "finished", "dropped", "ttft_p50_ms", "ttft_p90_ms",
               "ttft_p99_ms", "tpot_p50_ms", "tpot_p90_ms", "tpot_p99_ms", "e2e_p50_s", "e2e_p99_s",
               "throughput_tokens_per_s", "goodput_per_s", "slo_met_fraction", "mean_batch", "tokens_per_step",
               "kv_peak_fraction", "preemptions", "littles_law_ratio", "status"};
  r.narrow_columns = {"rate_per_s", "method", "finished", "ttft_p50_ms", "ttft_p99_ms", "tpot_p50_ms", "tpot_p99_ms",
                      "throughput_tokens_per_s", "goodput_per_s", "mean_batch", "status"};
  std::vector<std::string> methods = {"none"};
  if (method != "none") methods.push_back(method);
  std::map<std::pair<double, std::string>, RateSummary> summary;
  std::vector<std::string> overloaded_rates;  // rates where some method's queue grows
  std::vector<std::string> dispatch_words;    // --dispatch per-batch: the mean k drafted per rate
  // A closed batch has no rate: one run per method (its rows' rate_per_s: finished requests over the makespan).
  const auto rates = base.closed_batch > 0 ? std::vector<double>{0.0}
                     : base.trace.empty()  ? ctx.reals("rate")
                                           : std::vector<double>{double(base.trace.size()) /
                                                                 std::max(1e-9, base.trace.back().arrival_s)};
  // The requests every rate and method simulates (a rate's expected arrivals over the duration).
  if (base.closed_batch == 0 && base.trace.empty()) {
    double requests = 0;
    for (double rate : rates) {
      const double arrivals = rate * base.duration_s;
      requests += base.max_requests > 0 ? std::min(arrivals, double(base.max_requests)) : arrivals;
    }
    require_work_within("serve",
                        fmt::format("--rate ({} rates) x --duration-s {:g}{} x methods ({})", rates.size(), base.duration_s,
                                    base.max_requests > 0 ? fmt::format(" (at most {} requests each)", base.max_requests) : "",
                                    methods.size()),
                        requests * double(methods.size()), kMaxServedRequests, "requests");
  }
  std::vector<StepRecord> traced_steps;  // the timeline: the last rate's run with speculation (or without)
  std::string traced_run;
  for (double rate : rates)
    for (const auto& m : methods) {
      ServingConfig c = base;
      c.rate_per_s = rate;
      c.method = acceptance_key(m);
      const bool trace_this = ctx.want_trace && rate == rates.back() && m == methods.back();
      if (trace_this) c.record_steps_until_s = trace_window_s;
      if (m == "none") c.kv_capacity_tokens = plain_kv_capacity_tokens;
      if (m == "specpipe-db") {
        c.specpipe = specpipe->trees;
        c.virtual_engines = 1;  // one scheduler packs every running request into each pipeline step
      }
      ServingRun run = simulate_serving(acceptance_source, c, m == "none" ? plain_step_costs : step_costs);
      if (trace_this) {
        traced_steps = std::move(run.steps);
        traced_run = fmt::format("{} at {:g} requests/s, the first {:g} s", m == "none" ? "no SD" : m, rate, trace_window_s);
      }
      const ServingSummary sum = summarize_serving(run, ttft_slo_s, tpot_slo_s);
      r.rows.push_back({base.closed_batch > 0 ? double(sum.finished) / sum.span_s : rate, m == "none" ? std::string("no SD") : m, std::int64_t(m == "none" ? 0 : c.k),
                        std::int64_t(sum.requests), std::int64_t(sum.finished), std::int64_t(sum.dropped),
                        sum.ttft_p50_s * 1e3, sum.ttft_p90_s * 1e3, sum.ttft_p99_s * 1e3, sum.tpot_p50_s * 1e3,
                        sum.tpot_p90_s * 1e3, sum.tpot_p99_s * 1e3, sum.e2e_p50_s, sum.e2e_p99_s, sum.tokens_per_s,
                        sum.goodput_per_s, sum.finished ? double(sum.slo_met) / double(sum.finished) : 0.0,
                        run.mean_decode_batch, run.mean_tokens_per_step,
                        double(run.peak_kv_tokens) / double(c.kv_capacity_tokens), std::int64_t(run.preemptions),
                        sum.littles_law_ratio, sum.status});
      if (c.dispatch != "static" && m != "none")
        dispatch_words.push_back(fmt::format("{:.2g} at {:g}/s", run.mean_k, rate));
      const bool overloaded = sum.overloaded;
      summary[{rate, m}] = {sum.tpot_p50_s, sum.goodput_per_s, sum.tokens_per_s, sum.overloaded};
      if (overloaded && (overloaded_rates.empty() || overloaded_rates.back() != fmt::format("{:g}", rate)))
        overloaded_rates.push_back(fmt::format("{:g}", rate));
    }
  // Where speculation pays (speculation_pays). The answer is every rate where it does not, not
  // only the first: the comparison may flip back at higher load.
  std::string verdict;
  if (method != "none") {
    std::vector<std::string> not_paying;
    for (double rate : rates)
      if (!speculation_pays(summary[{rate, method}], summary[{rate, "none"}]))
        not_paying.push_back(fmt::format("{:g}", rate));
    const std::string criterion =
        fmt::format("median time per output token more than {:g} % below plain decoding's where both keep up; where "
                    "one's queue grows, the other; where both grow, {:g} % more tokens a second", kPaysBy * 100,
                    kPaysBy * 100);
    verdict = base.closed_batch > 0
                  ? fmt::format("{} {} in a closed batch of {} (median time per output token {:.3g} against {:.3g} ms)",
                                method, not_paying.empty() ? "pays" : "does not pay", base.closed_batch,
                                summary[{0.0, method}].tpot_p50 * 1e3, summary[{0.0, "none"}].tpot_p50 * 1e3)
              : not_paying.empty()
                  ? fmt::format("{} pays at every rate given ({})", method, criterion)
              : not_paying.size() == rates.size()
                  ? fmt::format("{} pays at no rate given (paying: {})", method, criterion)
                  : fmt::format("{} stops paying at {} requests/s (paying: {}; it pays at the other rates; a finer "
                                "--rate grid shows the crossing)", method, fmt::join(not_paying, ", "), criterion);
    if (!overloaded_rates.empty())
      verdict += fmt::format("\noverloaded at {} requests/s: the queue grows over the run, so those rows' percentiles "
                             "depend on --duration-s", fmt::join(overloaded_rates, ", "));
    // A number (JSON null where SD pays at every rate given).
    r.meta.emplace_back("sd_stops_paying_at_per_s",
                        not_paying.empty() ? std::numeric_limits<double>::quiet_NaN() : std::stod(not_paying.front()));
    r.meta.emplace_back("sd_not_paying_at_per_s", not_paying);
  }
  r.footer = fmt::format(
      "{}{}{} on {} (stack {}), engine {}; workload {} ({}); {}{}{}, seed {}; KV cache {} tokens{} "
      "in blocks of {}; scheduler {}: at most {} sequences and {}; SLO: TTFT <= {:g} ms and time per output "
      "token <= {:g} ms (goodput: requests meeting both per second); {} engine evaluations{}",
      verdict, verdict.empty() ? "" : "\n", target.name, where, hw.stack.name, engine, workload.name, workload.source,
      arrivals_words, base.closed_batch > 0 ? std::string() : fmt::format(" over {:g} s", base.duration_s),
      base.max_requests > 0 && base.closed_batch == 0 ? fmt::format(" (at most {} requests)", base.max_requests) : "",
      base.seed,
      base.kv_capacity_tokens,
      plain_kv_capacity_tokens != base.kv_capacity_tokens
          ? fmt::format(" beside the drafter ({} for plain decoding, deployed without it)", plain_kv_capacity_tokens)
          : std::string(),
      base.block_tokens, base.scheduler, base.max_num_seqs,
      base.chunked_prefill_tokens > 0
          ? fmt::format("{} tokens per step, decodes first and prompts in chunks (chunked prefill)",
                        base.chunked_prefill_tokens)
          : fmt::format("{} prefill tokens per step", base.max_batched_tokens),
      ctx.real("ttft-slo-ms"),
      ctx.real("tpot-slo-ms"), deployment.evaluations(), borrowed.empty() ? "" : "\ncaveat: borrowed: " + borrowed);
  if (base.virtual_engines > 1) {
    // What the overlap buys, on one plain step: its latency against its hold on the busiest stage.
    constexpr long long kShownContext = 1024;
    const double latency_s = plain_step_costs.decode_s(1, 1, kShownContext, 0);
    const double period_s = plain_step_costs.decode_period_s(1, 1, kShownContext, 0);
    r.footer += fmt::format("\npipeline: {} virtual engines (vLLM V0){}, a step per stage in flight: each its own "
                            "scheduler and queue (an arrival joins the one holding fewest requests), 1/{} of the KV "
                            "cache and at most {} sequences; a step enters once the one before it has left the busiest "
                            "stage (a one-token step of one sequence at context {}: {:.3g} ms end to end, {:.3g} ms "
                            "on its busiest stage)", base.virtual_engines,
                            specpipe ? " for plain decoding (SpecPipe-DB runs one scheduler)" : "",
                            base.virtual_engines, base.max_num_seqs, kShownContext, latency_s * 1e3, period_s * 1e3);
  } else if (stages > 1) {
    r.footer += fmt::format("\npipeline: one step at a time over its {} stages (--virtual-engines 1)", stages);
  }
  if (!replay_words.empty()) r.footer += "\n" + replay_words;
  if (!tree_words.empty()) r.footer += "\n" + tree_words;
  if (!mtp_words.empty()) r.footer += "\n" + mtp_words;
  if (specpipe) {
    std::vector<std::string> loads;
    for (double t : specpipe->stage_tokens) loads.push_back(fmt::format("{:.3g}", t));
    r.footer += fmt::format(
        "\nspecpipe-db: SpecPipe with dynamic batching (paper 002), w = {}, k = {}, draft {} on {}: every step is one "
        "pipeline step of every running request (one scheduler); a request whose verified level reaches the last "
        "stage emits a token, and the level held the target's token with probability {:.3f} (SpecPipe's plan over "
        "{} tokens of {}; hits independent per check), else its tree flushes and its next token comes {} steps later "
        "(the refill); "
        "a step is the slowest stage over each request's mean tokens there ({}) with its send, or the draft's level "
        "({:.3g} tokens a request) if longer, then the prune ({:g} ms)",
        int(ctx.integer("w")), k, specpipe->draft, system->devices[std::size_t(specpipe->draft_device)].name,
        specpipe->trees.hit, kSpecPipeDbPlanTokens, specpipe->acceptance, specpipe->trees.stages,
        fmt::join(loads, ", "), specpipe->draft_tokens, specpipe->prune_s * 1e3);
  }
  if (swap_link)
    r.footer += fmt::format("\npreemption by swap (vLLM V0): KV copied over {} to a CPU swap space of {:g} GiB ({} tokens) "
                            "per GPU, charged to the step; no prompt admitted while a request is out; a request "
                            "preempted with the swap space full is aborted (dropped column)",
                            swap_link->name, ctx.real("swap-space-gib"), base.swap_space_tokens);
  if (!dispatch_words.empty())
    r.footer += fmt::format("\ndispatch per batch: each step drafts the k of 0-{} with the most tokens a second at its "
                            "batch and context (k column: the largest); mean k drafted {}",
                            base.k, fmt::join(dispatch_words, ", "));
  if (ctx.want_trace) {
    // Perfetto: every step of the window on one track (prefill / decode, its batch and tokens),
    // and the batch, the queue and the KV cache in use as counters over time.
    r.footer += fmt::format("\ntrace: {}", traced_run);
    // A pipeline's virtual engines each have a track of their own (their steps overlap).
    r.write_trace = [steps = traced_steps, name = where, engines = base.virtual_engines](std::ostream& out) {
      out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
      out << fmt::format(R"({{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{{"name":"{} serving engine"}}}})", name);
      for (int v = 0; v < engines; ++v)
        out << ",\n"
            << fmt::format(R"({{"ph":"M","name":"thread_name","pid":1,"tid":{},"args":{{"name":"{}"}}}})", v + 1,
                           engines == 1 ? std::string("steps") : fmt::format("steps (virtual engine {})", v));
      for (const auto& st : steps) {
        const double ts = st.start_s * 1e6, dur = (st.end_s - st.start_s) * 1e6;
        out << ",\n"
            << fmt::format(R"({{"ph":"X","name":"{} {} x {}","pid":1,"tid":{},"ts":{:.3f},"dur":{:.3f},"args":{{"batch":{},"tokens_per_seq":{},"kv_tokens":{},"waiting":{}}}}})",
                           st.prefill ? "prefill" : "decode", st.batch, st.tokens_per_seq, st.engine + 1, ts, dur,
                           st.batch, st.tokens_per_seq, st.kv_tokens, st.waiting);
        out << ",\n"
            << fmt::format(R"({{"ph":"C","name":"load","pid":1,"ts":{:.3f},"args":{{"batch":{},"waiting":{}}}}})", ts,
                           st.batch, st.waiting);
        out << ",\n"
            << fmt::format(R"({{"ph":"C","name":"kv_tokens","pid":1,"ts":{:.3f},"args":{{"in_use":{}}}}})", ts, st.kv_tokens);
      }
      out << "\n]}\n";
    };
  }
  r.meta.emplace_back("overloaded_at_per_s", overloaded_rates);
  r.meta.emplace_back("workload", workload.name);
  r.meta.emplace_back("workload_source", workload.source);
  r.meta.emplace_back("engine", engine);
  r.meta.emplace_back("stack", hw.stack.name);
  // A named host (--host, a system's host:) scales the stack's host figures: say which.
  if (!hw.host.source_file.empty()) r.meta.emplace_back("host", hw.host.name);
  r.meta.emplace_back("kv_capacity_tokens", std::int64_t(base.kv_capacity_tokens));
  r.meta.emplace_back("kv_capacity_tokens_plain", std::int64_t(plain_kv_capacity_tokens));
  r.meta.emplace_back("borrowed", borrowed.empty() ? std::vector<std::string>{} : std::vector<std::string>{borrowed});
  return r;
}

const ScenarioRegistration serve_scenario_registration(
    {"serve",
     "Serving under load: a request-level simulation of continuous batching with and without speculative decoding "
     "per request rate (percentiles, throughput, goodput, where SD stops paying)",
     {param::reals("rate", "1,4,16", 1e-6, 1e5, "requests/s", "Poisson arrival rates, e.g. 1,4,16,64"),
      param::system("", "a system of GPUs instead of --hw (e.g. eagle-8xh100-nvlink: the target tensor parallel; a "
                        "pipeline keeps a step per stage in flight, --virtual-engines)"),
      param::integer("virtual-engines", 0, 0, 64, "schedulers",
                     "with a pipeline --system: steps in flight, each from a scheduler of its own with its share of "
                     "the KV cache (vLLM V0's virtual engines; 0: one per pipeline stage, as vLLM runs; 1: one step "
                     "at a time)"),
      param::real("duration-s", 60, 1e-3, 1e7, "s", "arrivals over this long (every request then runs to its end)"),
      param::integer("requests", 0, 0, kMaxServedRequests, "requests", "at most this many arrivals (0: as many as the duration holds)"),
      param::text("acceptance-trace", "",
                  "replay per-request acceptance traces (JSONL in SpecDecode-Bench's format: prompt_token_ids and "
                  "acc_eagle / acc_ngram acc_len per record): each request's lengths and per-position yields, as the "
                  "published benchmarks run them (with --arrivals batch:B and --trace-record: one prompt repeated B "
                  "times); --method eagle3-chain or ngram"),
      param::integer("trace-record", 0, 0, 1LL << 40, "",
                     "with --acceptance-trace: replay this record (0-based) for every request"),
      param::text("arrivals", "poisson",
                  "poisson, gamma:CV (bursty above 1: gamma inter-arrival times of that coefficient of variation at the "
                  "rate's mean), batch:B (a closed batch: B requests at time 0, as batch benchmarks run), or a CSV "
                  "trace with columns arrival_s, prompt_tokens, output_tokens"),
      param::real("trace-window-s", 10, 1e-3, 1e7, "s",
                  "with --trace-out: the steps of the last rate's run with speculation in its first this many seconds"),
      param::text("workload", "sharegpt-llama3.1-8b",
                  "serving workload preset (configs/serving: prompt and output lengths, measured acceptance) or a YAML path"),
      param::choice("method", "eagle3-chain",
                    {"eagle3-chain", "eagle3-tree", "ngram", "draft-model", "mtp", "specpipe-db", "none"},
                    "speculation compared with plain decoding: an EAGLE-3 head drafting a chain (the algorithm "
                    "eagle3-chain, shaped for the target) or EAGLE's dynamic tree of --k draft nodes (eagle3-tree: "
                    "its acceptance the preset's chains with misses recovered as paper 000 measured), n-gram (prompt lookup, its drafting not charged), a draft "
                    "model beside the target or on a device of --system (--draft, --alpha, --draft-device), the "
                    "target's own multi-token-prediction modules (mtp: an algorithm of draft type mtp for the target, "
                    "e.g. mimo-7b-mtp, at its published acceptance), SpecPipe with dynamic batching on a pipeline "
                    "--system (specpipe-db: --draft on the system's draft device, --w, --k), or none"),
      param::text("draft", "", "with --method draft-model: the draft model (configs/models), sharing the target's "
                               "vocabulary"),
      param::optional_real("alpha", 1e-6, 1 - 1e-6, "",
                           "with --method draft-model: its per-token acceptance (positions independent); with "
                           "--method mtp: every draft position's, instead of the published figures"),
      param::draft_device(),
      param::integer("k", 3, 1, 84, "tokens",
                     "draft tokens per speculative step (a chain: at most 15; eagle3-tree: its draft nodes; "
                     "specpipe-db: candidates per tree node, default 16)"),
      param::integer("w", kPaper002Width, 1, 1024, "nodes",
                     "with --method specpipe-db: SpecPipe's tree width, nodes per level (paper 002: 64)"),
      param::text("dispatch", "static",
                  "the dispatch policy, the draft tokens of each speculative step: static (--k every step) or "
                  "per-batch (the k of 0..--k with the most tokens a second at the step's batch and context, from "
                  "the preset's yields: 0 turns speculation off where it does not pay)"),
      param::integer("sd-off-above", 0, 0, 1 << 16, "sequences",
                     "dispatch policy: no speculation in a step with more running sequences (0: always speculate)"),
      param::integer("max-num-seqs", 256, 1, 1 << 16, "sequences", "running sequences at most (vLLM's max_num_seqs)"),
      param::integer("max-batched-tokens", 8192, 16, 1 << 22, "tokens",
                     "prompt tokens one prefill step takes at most (vLLM's max_num_batched_tokens)"),
      param::integer("block-tokens", 16, 1, 1024, "tokens", "KV cache block size (vLLM's default 16)"),
      param::text("scheduler", "vllm-v0",
                  "the serving engine's scheduler: vllm-v0 (vLLM V0's default: prefill steps of whole prompts "
                  "first, then decode steps; recompute or swap preemption; one per pipeline stage) or vllm-v1 (V1's "
                  "chunked prefill: decodes first, then prompt chunks in one step of --chunked-prefill-tokens)"),
      param::integer("chunked-prefill-tokens", 0, 0, 1 << 22, "tokens",
                     "vLLM V1's token budget: tokens one step takes, the decodes first and prompt chunks in what is "
                     "left (a budget alone chooses --scheduler vllm-v1; with --scheduler vllm-v1 alone, 2048, "
                     "vLLM's default below 70 GiB of GPU memory; recent vLLM serves larger GPUs with 8192)"),
      param::choice("preemption", "recompute", {"recompute", "swap"},
                    "when the KV cache fills: recompute (free the latest request's blocks, prefill it again later) "
                    "or swap (vLLM V0: copy them to the CPU over --swap-link and back before any new prompt)"),
      param::text("swap-link", "", "with --preemption swap: the GPU's host link (configs/links/, e.g. pcie5-x16)"),
      param::real("swap-space-gib", 4, 1e-3, 1e6, "GiB",
                  "with --preemption swap: CPU swap space per GPU (vLLM's --swap-space, default 4)"),
      param::real("ttft-slo-ms", 2000, 1e-3, 1e9, "ms", "time-to-first-token target for goodput"),
      param::real("tpot-slo-ms", 100, 1e-3, 1e9, "ms", "time-per-output-token target for goodput"),
      param::seed("arrivals, lengths and acceptance draws"),
      param::choice("engine", "roofline", {"roofline", "sim", "sim-clocked"}, "latency engine of the device")},
     run_serve,
     "serve",
     {"hw", "stack", "model", "engine"},
     {"model"},
     "serve_latency"});

}  // namespace
}  // namespace search::serving
