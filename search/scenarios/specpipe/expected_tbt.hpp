#pragma once
// Paper 002 §3.3.3, the expected time between tokens of a SpecPipe pipeline of m steps (stages):
//   eq. (1)  E(T) = max_i t_i(w) + (1 - P(w)) * sum_i t_i(w)
//   eq. (2)  E(T) = t(w) + (1 - P(w)) * m * t(w)          (equal t_i = t)
// t_i(w): time of pipeline step i with a w-node level, P(w): probability that the level at the
// last stage holds the target's token. The paper charges a whole pipeline pass per miss. In the
// mechanism of Algorithm 1 the step that finds the miss still emits its (correct) token and the
// refill then takes m steps for the next one, i.e. m - 1 steps more than a hit:
//   refill form  E(T) = t(w) + (1 - P(w)) * (m - 1) * t(w)
// (the simulation follows Algorithm 1; both are reported so the difference is visible).
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

inline double expected_tbt_refill(double t, int stages, double p) { return t + (1.0 - p) * (stages - 1) * t; }

}  // namespace search::specpipe
