#include "models/expert_routing.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "models/config_error.hpp"

namespace models {

namespace {

// Per-token inclusion probabilities pi_i of a Zipf(s) router with top-k: p_i in proportion to
// 1 / (i + 1)^s, then pi_i = min(1, c p_i) with sum pi_i = k. The p_i fall with i, so the capped
// ones are a prefix: cap the first j experts at 1 and scale the rest to k - j.
std::vector<double> zipf_inclusion(int experts, int top_k, double exponent) {
  std::vector<double> p(static_cast<std::size_t>(experts));
  for (int i = 0; i < experts; ++i) p[std::size_t(i)] = std::pow(double(i + 1), -exponent);
  std::vector<double> tail(static_cast<std::size_t>(experts) + 1, 0.0);  // tail[j]: sum of p_j .. p_{E-1}
  for (int i = experts - 1; i >= 0; --i) tail[std::size_t(i)] = tail[std::size_t(i) + 1] + p[std::size_t(i)];
  for (int capped = 0; capped < top_k; ++capped) {
    const double scale = double(top_k - capped) / tail[std::size_t(capped)];
    if (scale * p[std::size_t(capped)] <= 1.0) {
      std::vector<double> pi(static_cast<std::size_t>(experts), 1.0);
      for (int i = capped; i < experts; ++i) pi[std::size_t(i)] = scale * p[std::size_t(i)];
      return pi;
    }
  }
  return std::vector<double>(std::size_t(experts), double(top_k) / experts);  // k == E: every expert, always
}

}  // namespace

double expected_distinct_experts(int experts, int top_k, double tokens, const ExpertRouting& routing) {
  if (experts < 1 || top_k < 1 || top_k > experts)
    throw InputError("MoE routing: experts_per_token (top-k) must be in 1.." + std::to_string(experts) +
                     " (num_experts), got " + std::to_string(top_k));
  if (!(tokens >= 0)) throw InputError("MoE routing: tokens must be >= 0");
  if (!(routing.zipf_exponent >= 0 && routing.zipf_exponent <= kMaxRoutingZipfExponent))
    throw InputError("MoE routing: expert_routing_zipf_exponent must be in [0, " +
                     std::to_string(kMaxRoutingZipfExponent) + "], got " + std::to_string(routing.zipf_exponent));
  const double e = experts;
  if (routing.uniform()) return e * (1.0 - std::pow(1.0 - double(top_k) / e, tokens));
  double distinct = 0;
  for (double pi : zipf_inclusion(experts, top_k, routing.zipf_exponent)) distinct += 1.0 - std::pow(1.0 - pi, tokens);
  return distinct;
}

}  // namespace models
