// Token-accuracy estimators of paper 001: the App. B.2 MLE (root of eq. (12)) and eq. (2).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "models/config_error.hpp"
#include "search/acceptance/chain_trace.hpp"
#include "search/window/mle.hpp"

using namespace search;

namespace {
// Y ~ eq. (11): P(y) proportional to a^(y-1) on 1..gamma+1, by inversion of the CDF.
int sample_truncated(SplitMix64& rng, double a, int gamma) {
  double total = 0, term = 1;
  for (int y = 1; y <= gamma + 1; ++y, term *= a) total += term;
  double u = rng.uniform() * total;
  term = 1;
  for (int y = 1; y <= gamma; ++y, term *= a) {
    if (u < term) return y;
    u -= term;
  }
  return gamma + 1;
}
// What a chain verification at window gamma observes: min(K, gamma), K geometric (censored).
int sample_censored(SplitMix64& rng, double a, int gamma) {
  int k = 0;
  while (k < gamma && rng.uniform() < a) ++k;
  return k;
}
}  // namespace

// The asymptotic standard error at n = 10,000 is about 0.0037 (a = 0.3..0.95, gamma 8), so the
// 0.01 tolerance is about 2.7 standard errors; the seed is fixed, so the test is deterministic.
TEST_CASE("eq. (12) MLE recovers a within 0.01 from 10,000 iterations of model (11)", "[mle]") {
  const int gamma = 8;
  SplitMix64 rng(2024);
  double worst = 0;
  for (double a = 0.30; a <= 0.951; a += 0.05) {
    std::vector<WindowObservation> obs;
    long long sum_y = 0;
    for (int i = 0; i < 10000; ++i) {
      const int y = sample_truncated(rng, a, gamma);
      obs.push_back({gamma, y - 1});
      sum_y += y;
    }
    const auto est = mle_accuracy_truncated(obs);
    INFO("a = " << a << " estimate " << est.accuracy);
    CHECK_FALSE(est.at_boundary);
    CHECK(std::abs(est.accuracy - a) < 0.01);
    worst = std::max(worst, std::abs(est.accuracy - a));
    // The root is the root of the paper's polynomial (12), and of no other point nearby.
    CHECK(std::abs(mle_polynomial_eq12(est.accuracy, 10000, sum_y, gamma)) < 1e-6 * double(sum_y));
    CHECK(truncated_mean_tokens(est.accuracy, gamma) == Approx(double(sum_y) / 10000).epsilon(1e-9));
  }
  WARN("eq. (12) MLE, gamma 8, 10,000 iterations, a = 0.30..0.95: largest error " << worst);
}

TEST_CASE("eq. (2) recovers a within 0.01 from 10,000 censored chain iterations, while eq. (12) is biased there",
          "[mle]") {
  SplitMix64 rng(99);
  double worst = 0;
  for (int gamma : {4, 8}) {
    for (double a = 0.30; a <= 0.951; a += 0.05) {
      std::vector<WindowObservation> obs;
      for (int i = 0; i < 10000; ++i) obs.push_back({gamma, sample_censored(rng, a, gamma)});
      const double est = windowed_accuracy(obs, 0.999, 0.5);
      INFO("gamma = " << gamma << ", a = " << a << " estimate " << est);
      CHECK(std::abs(est - a) < 0.01);
      worst = std::max(worst, std::abs(est - a));
      if (gamma == 4 && std::abs(a - 0.8) < 1e-9) {
        // Censored counts pile up at gamma, beyond the truncated model's a -> 1 mean of (gamma+2)/2.
        const auto biased = mle_accuracy_truncated(obs);
        WARN("eq. (12) on censored data, gamma 4, a 0.8: " << biased.accuracy);
        CHECK(biased.accuracy > 0.9);
      }
    }
  }
  WARN("eq. (2) on censored iterations, gamma 4 and 8, a = 0.30..0.95: largest error " << worst);
}

TEST_CASE("estimators are robust at the ends and reject bad samples", "[mle]") {
  const std::vector<WindowObservation> none = {{4, 0}, {4, 0}, {2, 0}};
  CHECK(mle_accuracy_truncated(none).accuracy == 0.0);
  CHECK(mle_accuracy_truncated(none).at_boundary);
  const std::vector<WindowObservation> all = {{4, 4}, {4, 4}};
  CHECK(mle_accuracy_truncated(all).accuracy == 1.0);
  CHECK(windowed_accuracy(all, 0.9, 0.5) == 0.9);  // Acc_max caps the estimate
  CHECK(windowed_accuracy(none, 0.9, 0.5) == 0.0);
  CHECK(windowed_accuracy({}, 0.9, 0.5) == 0.5);          // no history: the prior
  CHECK(windowed_accuracy({{0, 0}}, 0.9, 0.5) == 0.5);    // gamma 0 carries no information
  // eq. (2): 3 accepted, one mismatch (1 < 2), one full window: 3 / (3 + 1)
  CHECK(windowed_accuracy({{2, 1}, {2, 2}}, 0.99, 0.5) == Approx(0.75));
  // Mixed windows: still a root in (0, 1) with the model mean matching the sample.
  const std::vector<WindowObservation> mixed = {{2, 1}, {5, 2}, {3, 0}, {6, 4}};
  const auto m = mle_accuracy_truncated(mixed);
  CHECK(m.accuracy > 0.0);
  CHECK(m.accuracy < 1.0);
  CHECK(truncated_mean_tokens(m.accuracy, 2) + truncated_mean_tokens(m.accuracy, 5) +
            truncated_mean_tokens(m.accuracy, 3) + truncated_mean_tokens(m.accuracy, 6) ==
        Approx(2 + 3 + 1 + 5).epsilon(1e-9));
  // The tail estimator looks only at the last h entries.
  const std::vector<WindowObservation> record = {{4, 0}, {4, 0}, {4, 4}, {4, 4}};
  CHECK(windowed_accuracy_tail(record, 2, 0.95, 0.5) == 0.95);
  CHECK_THROWS_AS(mle_accuracy_truncated({}), models::InputError);
  CHECK_THROWS_AS(mle_accuracy_truncated({{2, 3}}), models::InputError);
}
