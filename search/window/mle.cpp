#include "search/window/mle.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "models/config_error.hpp"

namespace search {

double truncated_mean_tokens(double accuracy, int gamma) {
  double weighted = 0, total = 0, term = 1;
  for (int y = 1; y <= gamma + 1; ++y) {
    weighted += y * term;
    total += term;
    term *= accuracy;
  }
  return weighted / total;
}

double mle_polynomial_eq12(double beta, long long n, long long sum_y, int gamma) {
  const double s = double(sum_y), nn = double(n), g = gamma;
  return (s - nn * (g + 2) + nn) * std::pow(beta, g + 2) + (nn * (g + 2) - s) * std::pow(beta, g + 1) -
         s * beta + s - nn;
}

AccuracyEstimate mle_accuracy_truncated(const std::vector<WindowObservation>& observations) {
  if (observations.empty())
    throw models::InputError("accuracy MLE: expected at least one iteration, got none");
  // Sufficient statistics: per window, the count and the sum of Y = accepted + 1.
  std::map<int, std::pair<long long, long long>> by_gamma;
  long long sum_y = 0;
  double upper_limit = 0;  // sum of the model means as a -> 1: (gamma + 2) / 2 each
  for (const auto& o : observations) {
    if (o.gamma < 0 || o.accepted < 0 || o.accepted > o.gamma)
      throw models::InputError(fmt::format(
          "accuracy MLE: expected 0 <= accepted <= gamma, got accepted {} with gamma {}", o.accepted, o.gamma));
    auto& [n, s] = by_gamma[o.gamma];
    ++n;
    s += o.accepted + 1;
    sum_y += o.accepted + 1;
    upper_limit += (o.gamma + 2) / 2.0;
  }
  AccuracyEstimate est;
  est.samples = (long long)observations.size();
  const double target = double(sum_y);
  if (sum_y <= est.samples) {  // nothing accepted: the likelihood peaks at a = 0
    est.accuracy = 0;
    est.at_boundary = true;
    return est;
  }
  if (target >= upper_limit) {  // sample mean at or beyond the model's a -> 1 limit
    est.accuracy = 1;
    est.at_boundary = true;
    return est;
  }
  auto model_sum = [&](double a) {
    double m = 0;
    for (const auto& [g, ns] : by_gamma) m += ns.first * truncated_mean_tokens(a, g);
    return m;
  };
  double lo = 0, hi = 1;
  for (int it = 0; it < 100 && hi - lo > 1e-15; ++it) {
    const double mid = 0.5 * (lo + hi);
    (model_sum(mid) < target ? lo : hi) = mid;
  }
  est.accuracy = 0.5 * (lo + hi);
  return est;
}

double windowed_accuracy(const std::vector<WindowObservation>& observations, double acc_max,
                         double prior) {
  return windowed_accuracy_tail(observations, 0, acc_max, prior);
}

double windowed_accuracy_tail(const std::vector<WindowObservation>& record, int history,
                              double acc_max, double prior) {
  const std::size_t first =
      history > 0 && record.size() > std::size_t(history) ? record.size() - std::size_t(history) : 0;
  long long accepted = 0, mismatches = 0;
  for (std::size_t i = first; i < record.size(); ++i) {
    accepted += record[i].accepted;
    if (record[i].accepted < record[i].gamma) ++mismatches;
  }
  if (accepted + mismatches == 0) return std::min(prior, acc_max);
  return std::min(double(accepted) / double(accepted + mismatches), acc_max);
}

}  // namespace search
