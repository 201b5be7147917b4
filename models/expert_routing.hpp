#pragma once
// How a MoE layer's router spreads tokens over its experts, and what that costs: the routed
// experts' weights are read once per distinct expert a step's tokens touch, so the number of
// distinct experts, not the token count, sets a MoE layer's bytes at decode.
//
// Two laws. Uniform (the default): every token picks its top-k experts uniformly at random,
// independently of the others (a balanced router; paper 004 and Meta publish no routing
// statistics for Llama 4). Zipf with exponent s > 0: expert e (0-based) is drawn with probability
// proportional to 1 / (e + 1)^s, a skewed router whose popular experts serve most tokens. Both
// were checked against routers made real on a lent H200 (cuda/moe_layer_kernels.py, 128 experts,
// top-1: notebooks_out/golden/h200_moe_layer_2026-11-29.csv, column experts_touched; the tests
// read it).
namespace models {

struct ExpertRouting {
  // 0: uniform; > 0: Zipf's exponent s (model YAML key expert_routing_zipf_exponent).
  double zipf_exponent = 0;
  bool uniform() const { return zipf_exponent == 0; }
};

// Largest Zipf exponent a model YAML may give (s = 4 sends 92 % of single-expert tokens to the
// most popular expert: far past any skew a trained router with a balancing loss shows).
constexpr double kMaxRoutingZipfExponent = 4.0;

// Expected distinct experts `tokens` tokens touch when each picks `top_k` of `experts`.
// Expert i is in one token's top-k with probability pi_i (sum over i: k) and escapes all T tokens
// with (1 - pi_i)^T, so the expectation is sum_i 1 - (1 - pi_i)^T. Uniform: pi_i = k / E, the
// closed form E (1 - (1 - k/E)^T), k at T = 1, tending to E. Zipf: pi_i = min(1, c p_i) with c set
// so that the pi_i sum to k (exact for top-1, where c = 1; for top-k > 1 an approximation of
// drawing k distinct experts in proportion to p). InputError unless 1 <= k <= E, T >= 0 and the
// exponent is in [0, kMaxRoutingZipfExponent].
double expected_distinct_experts(int experts, int top_k, double tokens, const ExpertRouting& routing = {});

}  // namespace models
