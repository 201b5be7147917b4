#include "search/window/policies.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "models/config_error.hpp"
#include "search/window/mle.hpp"

namespace search {

using models::InputError;

QReward parse_q_reward(const std::string& option, const std::string& name) {
  if (name == "tokens-per-s") return QReward::tokens_per_s;
  if (name == "acceptance-rate") return QReward::acceptance_rate;
  throw InputError(fmt::format("{}: expected tokens-per-s or acceptance-rate, got '{}'", option, name));
}

std::string to_string(QReward reward) {
  return reward == QReward::tokens_per_s ? "tokens-per-s" : "acceptance-rate";
}

void validate(const PolicyOptions& o) {
  require_gamma_max("--gamma-max", o.gamma_max);
  if (o.gamma_min < 0 || o.gamma_min > o.gamma_max)
    throw InputError(fmt::format("--gamma-min: expected 0..{} (the window limit), got {}", o.gamma_max, o.gamma_min));
  if (o.history < 1) throw InputError(fmt::format("--history: expected iterations >= 1, got {}", o.history));
  if (!(o.acc_max > 0 && o.acc_max < 1))
    throw InputError(fmt::format("--acc-max: expected a cap in (0, 1), got {}", o.acc_max));
  require_accuracy("--prior-alpha", o.prior_accuracy);
  const auto& q = o.q;
  if (!(q.learning_rate > 0 && q.learning_rate <= 1))
    throw InputError(fmt::format("--q-learning-rate: expected (0, 1], got {}", q.learning_rate));
  if (!(q.discount >= 0 && q.discount < 1))
    throw InputError(fmt::format("--q-discount: expected [0, 1), got {}", q.discount));
  if (!(q.epsilon >= 0 && q.epsilon <= 1))
    throw InputError(fmt::format("--q-epsilon: expected [0, 1], got {}", q.epsilon));
}

namespace {

int clamp_gamma(int g, const PolicyOptions& o) { return std::clamp(g, o.gamma_min, o.gamma_max); }

class StaticPolicy : public WindowPolicy {
 public:
  explicit StaticPolicy(int gamma) : gamma_(gamma) {}
  std::string name() const override { return fmt::format("static-{}", gamma_); }
  int next_gamma() override { return gamma_; }
  void observe(const IterationOutcome&) override {}

 private:
  int gamma_;
};

// Paper 001 §4.1: estimate the accuracy from the recent history (eq. 2, capped), then solve
// objective (1) over the integer windows with the engine's latencies.
class OnlinePolicy : public WindowPolicy {
 public:
  OnlinePolicy(const PolicyOptions& o, const ChainLatency& latency) : o_(o), latency_(latency) {}
  std::string name() const override { return "online"; }
  int next_gamma() override {
    const double a = windowed_accuracy_tail(record_, o_.history, o_.acc_max, o_.prior_accuracy);
    // At least one token is drafted: a window of 0 would stop the estimate from ever updating.
    return clamp_gamma(optimal_gamma(a, latency_, std::max(o_.gamma_min, 1)).gamma, o_);
  }
  void observe(const IterationOutcome& r) override {
    record_.push_back({r.gamma, r.accepted});
    // Only the last h entries are ever read; keep the record bounded.
    if (record_.size() > std::size_t(4 * o_.history + 64))
      record_.erase(record_.begin(), record_.end() - o_.history);
  }

 private:
  PolicyOptions o_;
  const ChainLatency& latency_;
  std::vector<WindowObservation> record_;
};

class FsmPolicy : public WindowPolicy {
 public:
  explicit FsmPolicy(const PolicyOptions& o) : o_(o), gamma_(clamp_gamma(o.gamma_init, o)) {}
  std::string name() const override { return "fsm"; }
  int next_gamma() override { return gamma_; }
  void observe(const IterationOutcome& r) override {
    gamma_ = clamp_gamma(gamma_ + (r.all_accepted() ? 1 : -1), o_);
  }

 private:
  PolicyOptions o_;
  int gamma_;
};

class CacheFsmPolicy : public WindowPolicy {
 public:
  explicit CacheFsmPolicy(const PolicyOptions& o) : o_(o), gamma_(clamp_gamma(o.gamma_init, o)) {}
  std::string name() const override { return "cache-fsm"; }
  int next_gamma() override { return gamma_; }
  void observe(const IterationOutcome& r) override {
    int step = r.any_cached ? 1 : -1;
    if (r.all_accepted()) step += 1;
    gamma_ = clamp_gamma(gamma_ + step, o_);
  }

 private:
  PolicyOptions o_;
  int gamma_;
};

// Paper 001 App. B.4: the agent sees the previous window and picks the next one.
class QLearningPolicy : public WindowPolicy {
 public:
  QLearningPolicy(const PolicyOptions& o, const ChainLatency& latency, QReward reward)
      : o_(o),
        reward_(reward),
        ad_tokens_per_s_(1.0 / latency.iteration_s(0)),
        rng_(o.q.seed),
        q_(std::size_t(o.gamma_max + 1), {0.0, 0.0, 0.0}),
        state_(clamp_gamma(o.gamma_init, o)) {
    // Optimistic start (the largest reward any window can earn, summed over the discounted
    // future): every untried action looks best until tried, so the agent explores all windows
    // systematically instead of locking onto its first one.
    double max_reward = 1.0;  // acceptance rate <= 1
    if (reward_ == QReward::tokens_per_s)
      for (int g = 0; g <= o.gamma_max; ++g)
        max_reward = std::max(max_reward, (g + 1) / latency.iteration_s(g) / ad_tokens_per_s_);
    if (o.q.optimistic_start)
      for (auto& row : q_) row.fill(max_reward / (1.0 - o.q.discount));
  }
  std::string name() const override { return "q-learning-" + to_string(reward_); }
  int next_gamma() override {
    if (rng_.uniform() < o_.q.epsilon) {
      action_ = int(rng_.next() % 3);
    } else {
      // Greedy; ties prefer "keep" (index 1), then shrink, then grow.
      const auto& row = q_[std::size_t(state_)];
      action_ = 1;
      for (int a : {0, 2})
        if (row[std::size_t(a)] > row[std::size_t(action_)]) action_ = a;
    }
    return clamp_gamma(state_ + action_ - 1, o_);
  }
  void observe(const IterationOutcome& r) override {
    double reward = 0;
    if (reward_ == QReward::tokens_per_s) {
      reward = r.tokens() / r.time_s / ad_tokens_per_s_;  // speedup of this iteration over AD
    } else {
      reward = r.gamma > 0 ? double(r.accepted) / r.gamma : 1.0;
    }
    auto& q = q_[std::size_t(state_)][std::size_t(action_)];
    const auto& next = q_[std::size_t(r.gamma)];
    const double best_next = *std::max_element(next.begin(), next.end());
    q += o_.q.learning_rate * (reward + o_.q.discount * best_next - q);
    state_ = r.gamma;
  }

 private:
  PolicyOptions o_;
  QReward reward_;
  double ad_tokens_per_s_;
  SplitMix64 rng_;
  std::vector<std::array<double, 3>> q_;  // [previous gamma][action: -1, 0, +1]
  int state_;
  int action_ = 1;
};

}  // namespace

std::unique_ptr<WindowPolicy> make_static_policy(int gamma) {
  if (gamma < 0) throw InputError(fmt::format("static window: expected gamma >= 0, got {}", gamma));
  return std::make_unique<StaticPolicy>(gamma);
}
std::unique_ptr<WindowPolicy> make_online_policy(const PolicyOptions& o, const ChainLatency& latency) {
  validate(o);
  return std::make_unique<OnlinePolicy>(o, latency);
}
std::unique_ptr<WindowPolicy> make_fsm_policy(const PolicyOptions& o) {
  validate(o);
  return std::make_unique<FsmPolicy>(o);
}
std::unique_ptr<WindowPolicy> make_cache_fsm_policy(const PolicyOptions& o) {
  validate(o);
  return std::make_unique<CacheFsmPolicy>(o);
}
std::unique_ptr<WindowPolicy> make_q_learning_policy(const PolicyOptions& o, const ChainLatency& latency,
                                                     QReward reward) {
  validate(o);
  return std::make_unique<QLearningPolicy>(o, latency, reward);
}

PolicyResult replay_policy(WindowPolicy& policy, const ChainTrace& trace, const ChainLatency& latency) {
  if (trace.iterations.empty())
    throw InputError(fmt::format("{}: trace: expected at least one iteration, got none", trace.source));
  PolicyResult r;
  r.policy = policy.name();
  long long gamma_sum = 0;
  for (const auto& it : trace.iterations) {
    IterationOutcome out;
    out.gamma = policy.next_gamma();
    if (out.gamma < 0 || out.gamma > latency.gamma_max())
      throw InputError(fmt::format("policy {}: window {} outside the latency table 0..{}", policy.name(),
                                   out.gamma, latency.gamma_max()));
    out.accepted = std::min(it.matched, out.gamma);
    for (int i = 0; i < out.accepted && i < int(it.cached.size()); ++i)
      if (it.cached[std::size_t(i)]) out.any_cached = true;
    out.time_s = latency.iteration_s(out.gamma);
    policy.observe(out);
    ++r.iterations;
    r.tokens += out.tokens();
    r.accepted += out.accepted;
    r.drafted += out.gamma;
    r.time_s += out.time_s;
    gamma_sum += out.gamma;
  }
  r.tokens_per_s = double(r.tokens) / r.time_s;
  r.acceptance_rate = r.drafted > 0 ? double(r.accepted) / double(r.drafted) : 0.0;
  r.mean_gamma = double(gamma_sum) / double(r.iterations);
  r.speedup = r.tokens_per_s * latency.iteration_s(0);
  return r;
}

std::vector<PolicyResult> replay_all_policies(const ChainTrace& trace, const ChainLatency& latency,
                                              const PolicyOptions& options) {
  validate(options);
  if (latency.gamma_max() < options.gamma_max)
    throw InputError(fmt::format("latency table: expected windows up to {}, got up to {}", options.gamma_max,
                                 latency.gamma_max()));
  std::vector<std::unique_ptr<WindowPolicy>> policies;
  for (int g = std::max(options.gamma_min, 1); g <= options.gamma_max; ++g)
    policies.push_back(make_static_policy(g));
  policies.push_back(make_online_policy(options, latency));
  policies.push_back(make_fsm_policy(options));
  if (trace.has_cache_flags) policies.push_back(make_cache_fsm_policy(options));
  for (QReward reward : options.q_rewards) policies.push_back(make_q_learning_policy(options, latency, reward));
  std::vector<PolicyResult> results;
  for (auto& p : policies) results.push_back(replay_policy(*p, trace, latency));
  return results;
}

}  // namespace search
