// specdse policies: paper 001's window policies (static, online optimisation, FSM, cache-FSM,
// Q-learning) replayed over a chain acceptance trace, each iteration timed by a latency engine
// (or by a constant draft/target cost ratio).
#include <fmt/format.h>

#include <sstream>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/heartbeat.hpp"
#include "experiments/cli/policy_trace.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "models/config_error.hpp"
#include "search/acceptance/chain_trace.hpp"
#include "search/window/policies.hpp"
#include "search/window/policy_registry.hpp"
#include "sim/io/output_path.hpp"
#include "sim/system/system_costs.hpp"

namespace experiments {
namespace {

struct PoliciesArgs {
  std::string trace, synthetic, acceptance, write_trace, hw, model, draft, engine, format, q_reward, policies;
  long long iterations = -1;  // not given
  long long context = -1;
  double cost_ratio = -1;
  std::uint64_t seed = 1;
  search::PolicyOptions options;
};

int run_policies(PoliciesArgs a, const GlobalOptions& g) {
  const Heartbeat beat("policies");  // a line on a terminal's stderr while a large grid runs
  if (a.q_reward != "both") a.options.q_rewards = {search::parse_q_reward("--q-reward", a.q_reward)};
  a.options.q.seed = a.seed;
  search::validate(a.options);
  // The generated trace's file: writable, and none of the files the run reads.
  if (!a.write_trace.empty()) {
    sim::check_output_target(a.write_trace);
    sim::check_run_outputs({{"--write-trace", a.write_trace}},
                           {{"--acceptance", a.acceptance}, {"--trace", a.trace}, {"--hw", a.hw}, {"--model", a.model}});
  }

  PolicyTraceSource source;
  source.trace = a.trace;
  source.synthetic = a.synthetic;
  source.acceptance = a.acceptance;
  source.iterations = a.iterations;
  source.seed = a.seed;
  source.config_dir = registry(g).dir();
  const PolicyTrace generated = policy_trace(source);
  const search::ChainTrace& trace = generated.trace;
  if (!a.write_trace.empty()) {
    if (!a.trace.empty()) throw models::InputError("--write-trace: writes a generated trace (--synthetic or --acceptance), not --trace");
    write_file_atomic(a.write_trace, search::format_chain_trace(trace, generated.description));
  }

  const bool constant_mode = a.cost_ratio >= 0;
  const bool engine_mode = !a.hw.empty() || !a.model.empty() || !a.draft.empty();
  if (constant_mode == engine_mode)
    throw models::InputError("policies: expected either --cost-ratio C or --hw, --model, --draft and --context, got " +
                             std::string(constant_mode ? "both" : "neither"));
  search::ChainLatency latency = search::ChainLatency::constant(0, 1, 1);
  std::string where;
  if (constant_mode) {
    latency = search::ChainLatency::constant(a.cost_ratio, 1.0, a.options.gamma_max);
    where = fmt::format("constant T_v = 1 s, cost ratio {}", a.cost_ratio);
  } else {
    if (a.hw.empty() || a.model.empty() || a.draft.empty() || a.context < 0)
      throw models::InputError("policies: engine mode: expected --hw, --model, --draft and --context >= 0, got "
                               "only some of them");
    const auto reg = registry(g);
    const auto hw = reg.hardware(a.hw);
    const auto w = make_workload(reg, a.model, a.draft);
    // Through a one-device deployment: its forwards are memoised like every scenario's.
    const auto device = sim::deploy_device(hw, a.engine);
    const models::LatencyEngine* const engine = &device->engine(0);
    latency = search::ChainLatency::from_engine(*engine, w, a.context, a.options.gamma_max);
    where = fmt::format("{} {} + {} at L = {} ({}), cost ratio {:.4g}", hw.name, w.target.name, w.algorithm->name,
                        a.context, engine->name(), latency.cost_ratio());
  }

  std::vector<std::string> families;
  std::stringstream list(a.policies);
  for (std::string name; std::getline(list, name, ',');) families.push_back(name);
  const auto results = search::replay_all_policies(trace, latency, a.options, families);
  Table t({"policy", "iterations", "tokens", "time_s", "tokens_per_s", "acceptance_rate", "mean_gamma", "speedup"});
  for (const auto& r : results)
    t.add_row({r.policy, integer(r.iterations), integer(r.tokens), num(r.time_s), num(r.tokens_per_s),
               num(r.acceptance_rate), num(r.mean_gamma), num(r.speedup)});
  t.set_footer(fmt::format("{} ({} iterations, mean top-1 run {:.3f}); {}; h = {}, Acc_max = {}, gamma {}..{}, "
                           "Q reward {}",
                           generated.description, trace.iterations.size(), trace.mean_matched(), where, a.options.history,
                           a.options.acc_max, a.options.gamma_min, a.options.gamma_max,
                           a.q_reward));
  print_table(t, a.format);
  return 0;
}

const RegisterCommand policies_registration{
    "policies",
    "Window policies of paper 001 (static, online, FSM, cache-FSM, Q-learning) replayed over a chain trace",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<PoliciesArgs>();
      sub.add_option("--trace", a->trace,
                     "Chain trace: per line the untruncated run of top-1 matches as zeros, optional '| flags'");
      sub.add_option("--synthetic", a->synthetic,
                     "Generate the trace instead: ITERATIONS:ACCURACY[:CACHE_HIT_P],.. e.g. 2000:0.9,2000:0.5");
      sub.add_option("--acceptance", a->acceptance,
                     "Generate the trace from the acceptance process instead: a band's name or path (its central fit; "
                     "e.g. duodecoding-paper003, specpipe-paper002)");
      sub.add_option("--iterations", a->iterations,
                     fmt::format("With --acceptance: iterations generated (default {})",
                                 PolicyTraceSource::kDefaultIterations));
      sub.add_option("--write-trace", a->write_trace, "With --synthetic or --acceptance: also write the generated trace here");
      sub.add_option("--seed", a->seed, "Seed of the generated trace and of Q-learning's exploration")->default_val(1)->check(integer_in(0, kMaxSeed));
      sub.add_option("--hw", a->hw, "Hardware config name");
      sub.add_option("--model", a->model, "Target model: config name (configs/models), NAME@FORMAT, or a YAML path");
      sub.add_option("--draft", a->draft, "Chain algorithm (longspec-chain, eagle3-chain) or a draft model name");
      // Another command's name for the same input: listed, and an error given with --draft.
      sub.add_option("--algorithm", a->draft, "Same as --draft (the name optimize uses)")->excludes("--draft");
      sub.add_option("--context", a->context, "Context length L the latencies are taken at")
          ->check(integer_in(0, kMaxContext));
      sub.add_option("--cost-ratio", a->cost_ratio, "Instead of an engine: draft time per token / T_v (T_v = 1 s)");
      sub.add_option("--gamma-max", a->options.gamma_max, "Largest window (>= 1)")->default_val(8);
      sub.add_option("--gamma-min", a->options.gamma_min, "Smallest window of the adaptive policies")->default_val(1);
      sub.add_option("--gamma-init", a->options.gamma_init, "First window of FSM, cache-FSM and Q-learning")
          ->default_val(4);
      sub.add_option("--history", a->options.history, "h: iterations the online estimate looks back over")
          ->default_val(6);
      sub.add_option("--acc-max", a->options.acc_max, "Acc_max: cap of the online accuracy estimate")
          ->default_val(0.95);
      sub.add_option("--prior-alpha", a->options.prior_accuracy, "Online accuracy estimate before any history")
          ->default_val(0.5);
      sub.add_option("--q-reward", a->q_reward,
                     "Q-learning reward: tokens-per-s (iteration speedup over AD), acceptance-rate "
                     "(paper 001 Algorithm 2) or both (one row each)")
          ->default_val("both");
      sub.add_option("--policies", a->policies,
                     fmt::format("Policy families to replay, comma-separated, in this order (default: all "
                                 "registered: {})",
                                 fmt::join(search::window_policy_names(), ",")));
      sub.add_option("--q-learning-rate", a->options.q.learning_rate, "Q-learning step size")->default_val(0.1);
      sub.add_option("--q-discount", a->options.q.discount, "Q-learning discount (0: myopic)")->default_val(0.0);
      sub.add_option("--q-epsilon", a->options.q.epsilon, "Q-learning exploration probability")->default_val(0.1);
      sub.add_flag("--q-optimistic", a->options.q.optimistic_start,
                   "Start Q-values at the largest discounted reward (explores every window first)");
      add_engine_option(sub, a->engine);
      // --cost-ratio replaces the engine: its latencies are neither simulated nor taken at a context.
      sub.get_option("--engine")->excludes("--cost-ratio");
      sub.get_option("--context")->excludes("--cost-ratio");
      // Q-learning's settings with a --policies list that leaves Q-learning out would be ignored.
      sub.callback([&sub, a] {
        if (sub.count("--policies") == 0) return;
        std::string names = "," + a->policies + ",";
        if (names.find(",q-learning,") != std::string::npos) return;
        for (const char* q : {"--q-learning-rate", "--q-discount", "--q-epsilon", "--q-optimistic", "--q-reward"})
          if (sub.count(q) > 0)
            throw CLI::ValidationError(q, fmt::format("sets Q-learning, which --policies {} leaves out", a->policies));
      });
      add_format_option(sub, a->format);
      return [a, &g] { return run_policies(*a, g); };
    },
    61};

}  // namespace
}  // namespace experiments
