#pragma once
// Estimating the token accuracy a of a chain draft from observed accepted counts (paper 001
// §4.1 eq. (2) and Appendix B.2).
//
// Two estimators, because the paper uses two models of the same observation:
// * App. B.2 treats Y = accepted + 1 as a geometric variable *truncated* to 1..gamma+1 (eq. 11);
//   its maximum-likelihood estimate is the root in (0, 1) of the polynomial (12). The truncated
//   geometric is an exponential family in log a, so the score equation is "model mean = sample
//   mean" (eq. 13) and the mean rises strictly with a: one root, found here by bisection, which
//   stays robust at both ends and also handles histories with mixed windows.
// * In a real chain verification the count is *censored* at gamma (accepted = min(K, gamma) with
//   K geometric): P(k) = a^k (1 - a) for k < gamma, P(gamma) = a^gamma. Its exact MLE is the
//   closed form eq. (2), sum(accepted) / (sum(accepted) + #{accepted < gamma}), which the
//   online policy uses over its last h iterations, capped at Acc_max.
// On censored data the truncated-model root is biased (the tests measure how much).
#include <vector>

namespace search {

struct WindowObservation {
  int gamma = 0;     // window used in the iteration
  int accepted = 0;  // draft tokens accepted, 0..gamma (bonus token not counted)
};

// Mean of Y (tokens incl. bonus) under eq. (11): eq. (13), evaluated as a ratio of finite sums.
double truncated_mean_tokens(double accuracy, int gamma);
// Left-hand side of eq. (12) for n samples with sum_y = sum of Y (accepted + 1) at one gamma.
double mle_polynomial_eq12(double beta, long long n, long long sum_y, int gamma);

struct AccuracyEstimate {
  double accuracy = 0;
  bool at_boundary = false;  // no interior root: all rejected (0) or mean at/above the a -> 1 limit (1)
  long long samples = 0;
};

// App. B.2: MLE of a under the truncated model (11); root of (12) in (0, 1) (mixed windows allowed).
// Throws models::InputError on an empty sample or accepted outside 0..gamma.
AccuracyEstimate mle_accuracy_truncated(const std::vector<WindowObservation>& observations);

// Eq. (2) (the censored-geometric MLE), capped at acc_max. Iterations with gamma = 0 carry no
// information; with no informative iteration the estimate is `prior`.
double windowed_accuracy(const std::vector<WindowObservation>& observations, double acc_max,
                         double prior);
// The same over the last `history` entries of a longer record (history <= 0: all of it).
double windowed_accuracy_tail(const std::vector<WindowObservation>& record, int history,
                              double acc_max, double prior);

}  // namespace search
