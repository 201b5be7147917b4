#include "search/window/policies.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/config_error.hpp"
#include "search/window/mle.hpp"
#include "search/window/policy_registry.hpp"

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
                                              const PolicyOptions& options, const std::vector<std::string>& families) {
  validate(options);
  if (latency.gamma_max() < options.gamma_max)
    throw InputError(fmt::format("latency table: expected windows up to {}, got up to {}", options.gamma_max,
                                 latency.gamma_max()));
  const WindowPolicyInput input{options, latency, trace};
  // Build every family first: a bad name fails before any replay runs.
  std::vector<std::unique_ptr<WindowPolicy>> policies;
  for (const auto& family : families.empty() ? window_policy_names() : families)
    for (auto& p : make_window_policies(family, input)) policies.push_back(std::move(p));
  std::vector<PolicyResult> results;
  for (auto& p : policies) results.push_back(replay_policy(*p, trace, latency));
  return results;
}

}  // namespace search
