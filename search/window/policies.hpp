#pragma once
// Speculation-window policies of paper 001 (§4.1, §4.2, App. B.4) replayed over a chain trace,
// with each iteration's time taken from a ChainLatency table (an engine or a constant ratio).
// Replaying iteration i at window gamma accepts min(k_i, gamma) draft tokens, yields that + 1
// tokens and costs T_d(gamma) + T_v(gamma + 1).
//
// Policies:
//   static-G    gamma = G throughout (standard SD)
//   online      objective (1) re-solved every iteration with the eq. (2) estimate of the
//               accuracy over the last h iterations, capped at Acc_max
//   fsm         saturating counter: +1 when every drafted token was accepted, -1 otherwise
//   cache-fsm   +1 when an accepted token was already in the token cache, +1 more when all were
//               accepted, -1 when none of the accepted tokens was cached (needs cache flags)
//   q-learning-<reward>  tabular Q-learning, state = previous gamma, actions {-1, 0, +1},
//               epsilon-greedy; reward tokens-per-s (the iteration's tokens per second relative
//               to AD) or acceptance-rate (accepted / drafted, paper 001 Algorithm 2 line 18).
//               Both run by default: the paper's finding (higher acceptance rate, lower
//               throughput than online) comes from the acceptance reward.
// Each family lives in its own file and registers itself (search/window/policy_registry.hpp).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "search/window/chain_sd.hpp"
#include "search/acceptance/chain_trace.hpp"

namespace search {

enum class QReward {
  tokens_per_s,     // tokens of the iteration / its time, relative to AD (the reward)
  acceptance_rate,  // accepted / drafted, as paper 001 Algorithm 2 line 18
};
QReward parse_q_reward(const std::string& option, const std::string& name);
std::string to_string(QReward reward);

struct QLearningOptions {
  double learning_rate = 0.1;
  // The trace's accuracy does not react to the window, so an iteration's reward depends only on
  // its own window; a myopic agent (discount 0) is the natural default. Measured on the drifting
  // 0.9/0.5 trace (10 seeds), the acceptance-reward agent's "higher acceptance rate than online"
  // holds for 10/10 seeds at discount 0, 8/10 at 0.5 and 5/10 at 0.9.
  double discount = 0.0;
  double epsilon = 0.1;    // exploration probability
  std::uint64_t seed = 1;  // exploration is deterministic for a seed
  bool optimistic_start = false;  // Q starts at the largest discounted reward instead of 0
};

struct PolicyOptions {
  int gamma_max = 8;      // windows never exceed this (paper 001: gamma_max)
  int gamma_min = 1;      // and never fall below this (0 lets FSMs stop drafting for a step)
  int gamma_init = 4;     // first window of the FSMs and Q-learning (clamped into range)
  int history = 6;        // h: iterations the online estimator looks back over
  double acc_max = 0.95;  // Acc_max: cap of the online accuracy estimate
  double prior_accuracy = 0.5;  // online estimate before any informative iteration
  QLearningOptions q;
  std::vector<QReward> q_rewards = {QReward::tokens_per_s, QReward::acceptance_rate};
};
void validate(const PolicyOptions& options);  // throws models::InputError naming the option
inline int clamp_gamma(int gamma, const PolicyOptions& o) { return std::clamp(gamma, o.gamma_min, o.gamma_max); }

struct IterationOutcome {
  int gamma = 0;
  int accepted = 0;        // min(k, gamma)
  bool any_cached = false; // some accepted token was already in the cache
  double time_s = 0;
  int tokens() const { return accepted + 1; }
  bool all_accepted() const { return accepted == gamma; }
};

class WindowPolicy {
 public:
  virtual ~WindowPolicy() = default;
  virtual std::string name() const = 0;
  virtual int next_gamma() = 0;                         // window for the coming iteration
  virtual void observe(const IterationOutcome& outcome) = 0;
};

// Single policies, each defined in its own file with its family's registration
// (search/window/policy_registry.hpp).
std::unique_ptr<WindowPolicy> make_static_policy(int gamma);
std::unique_ptr<WindowPolicy> make_online_policy(const PolicyOptions& o, const ChainLatency& latency);
std::unique_ptr<WindowPolicy> make_fsm_policy(const PolicyOptions& o);
std::unique_ptr<WindowPolicy> make_cache_fsm_policy(const PolicyOptions& o);
std::unique_ptr<WindowPolicy> make_q_learning_policy(const PolicyOptions& o, const ChainLatency& latency,
                                                     QReward reward);

struct PolicyResult {
  std::string policy;
  long long iterations = 0, tokens = 0, accepted = 0, drafted = 0;
  double time_s = 0;
  double tokens_per_s = 0;
  double acceptance_rate = 0;  // accepted / drafted (paper 001 Theorem 1's rho)
  double mean_gamma = 0;
  double speedup = 0;          // over AD at the same latencies: tokens_per_s * T_v(1)
};

PolicyResult replay_policy(WindowPolicy& policy, const ChainTrace& trace, const ChainLatency& latency);

// Every policy of the registered families (or of `families`, in that order), in registry order:
// static-1..static-gamma_max, online, fsm, cache-fsm (only if the trace has cache flags), one
// q-learning row per reward in options.q_rewards. The latency table must reach options.gamma_max.
std::vector<PolicyResult> replay_all_policies(const ChainTrace& trace, const ChainLatency& latency,
                                              const PolicyOptions& options,
                                              const std::vector<std::string>& families = {});

}  // namespace search
