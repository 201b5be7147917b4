#pragma once
// Paper 002 §3.3.3, the expected time between tokens of a SpecPipe pipeline of m steps (stages):
//   eq. (1)  E(T) = max_i t_i(w) + (1 - P(w)) * sum_i t_i(w)
//   eq. (2)  E(T) = t(w) + (1 - P(w)) * m * t(w)          (equal t_i = t)
// t_i(w): time of pipeline step i with a w-node level, P(w): probability that the level at the
// last stage holds the target's token. The paper charges a miss a whole pipeline pass on top of
// the step. In the mechanism of Algorithm 1 the step that finds the miss still emits its (correct)
// token, and the next token needs one pass of that token through every stage (one token per
// stage, no pruning while the pipeline refills), so with T_hit the time of a step that hits and
// T_miss the refill pass:
//   mechanism  E(T) = P T_hit + (1 - P) T_miss        (= t + (1 - P)(m - 1) t for equal stages)
// The simulation follows Algorithm 1; all three are reported so the difference is visible.
#include <algorithm>
#include <numeric>
#include <vector>

namespace search::specpipe {

inline double expected_tbt_eq1(const std::vector<double>& step_times, double p) {
  if (step_times.empty()) return 0.0;
  const double mx = *std::max_element(step_times.begin(), step_times.end());
  const double sum = std::accumulate(step_times.begin(), step_times.end(), 0.0);
  return mx + (1.0 - p) * sum;
}

inline double expected_tbt_eq2(double t, int stages, double p) { return t + (1.0 - p) * stages * t; }

inline double expected_tbt_mechanism(double t_hit, double t_miss, double p) { return p * t_hit + (1.0 - p) * t_miss; }

}  // namespace search::specpipe
