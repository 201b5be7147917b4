// q-learning-<reward> (paper 001 App. B.4): tabular Q-learning, the agent sees the previous
// window and picks the next one; one policy per reward in options.q_rewards.
#include <algorithm>
#include <array>

#include "search/window/policy_registry.hpp"

namespace search {
namespace {

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

std::unique_ptr<WindowPolicy> make_q_learning_policy(const PolicyOptions& o, const ChainLatency& latency,
                                                     QReward reward) {
  validate(o);
  return std::make_unique<QLearningPolicy>(o, latency, reward);
}

namespace {

const WindowPolicyRegistration q_learning_policy_registration("q-learning", 50, [](const WindowPolicyInput& in) {
  std::vector<std::unique_ptr<WindowPolicy>> policies;
  for (QReward reward : in.options.q_rewards) policies.push_back(make_q_learning_policy(in.options, in.latency, reward));
  return policies;
});

}  // namespace
}  // namespace search
