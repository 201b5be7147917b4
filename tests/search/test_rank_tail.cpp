// The acceptance process's rank laws (search/acceptance/rank_tail.hpp): the calibrated draft's
// expectation against a closed form, the log-logistic law's shape (listed probabilities that never
// rise with the rank, a CDF its inverse matches), and a process with that tail: its exact top-k
// hits against its own samplers and against SpecPipe's rank draws.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "models/config_error.hpp"
#include "search/acceptance/acceptance_process.hpp"
#include "search/acceptance/rank_tail.hpp"
#include "search/scenarios/specpipe/speculative_tree.hpp"

using search::AcceptanceProcess;
using search::AcceptanceProcessParams;

namespace {
// E[P (1 - P)^r] for P ~ Beta(c, 1), c = a / (1 - a): c B(c + 1, r + 1).
double beta_closed_form(double a, int r) {
  const double c = a / (1 - a);
  return c * std::exp(std::lgamma(c + 1) + std::lgamma(r + 1.0) - std::lgamma(c + r + 2));
}

AcceptanceProcess log_logistic(double alpha, double shape, search::DraftConfidence confidence) {
  AcceptanceProcessParams p;
  p.alpha_easy = p.alpha_hard = alpha;
  p.confidence = confidence;
  p.rank_tail_shape = shape;
  return AcceptanceProcess(p, "log-logistic test");
}
}  // namespace

TEST_CASE("rank tail: the calibrated expectation reproduces the geometric law's closed form") {
  for (double a : {0.02, 0.3, 0.6, 0.9, 0.99})
    for (int r : {0, 1, 5, 31, 200}) {
      INFO("a " << a << " rank " << r);
      const double numeric = search::calibrated_top1_expectation(
          a, [r](double p) { return search::rank_probability_given_top1(p, r, 0.0); });
      CHECK(numeric == Approx(beta_closed_form(a, r)).epsilon(1e-8).margin(1e-12));
    }
  // The density integrates to one and its mean is a.
  CHECK(search::calibrated_top1_expectation(0.7, [](double) { return 1.0; }) == Approx(1.0).epsilon(1e-10));
  CHECK(search::calibrated_top1_expectation(0.7, [](double p) { return p; }) == Approx(0.7).epsilon(1e-10));
}

TEST_CASE("rank tail: the log-logistic law lists non-increasing probabilities and its inverse finds the rank") {
  for (double shape : {0.3, 0.7, 1.0})
    for (double p : {0.01, 0.2, 0.5, 0.81, 0.97}) {
      INFO("shape " << shape << " p " << p);
      double sum = 0, previous = 1;
      for (int r = 0; r < 64; ++r) {
        const double q = search::rank_probability_given_top1(p, r, shape);
        CHECK(q <= previous + 1e-15);
        previous = q;
        sum += q;
      }
      CHECK(sum == Approx(search::rank_cdf_given_top1(p, 64, shape)).epsilon(1e-12));
      CHECK(search::rank_cdf_given_top1(p, 1, shape) == Approx(p));
      for (double w : {0.0, 0.5, 0.9, 0.999}) {
        const double h = p + w * (1 - p);  // the CDF the lower ranks' quantile w stands for
        const long long beyond = 1LL << 40;
        const long long k = search::lower_rank_for_quantile(p, w, shape, beyond);
        if (k == beyond) continue;  // deeper than any list (a weak draft under a heavy tail)
        CHECK(k >= 2);
        CHECK(search::rank_cdf_given_top1(p, double(k), shape) >= h * (1 - 1e-12));
        if (k > 2) CHECK(search::rank_cdf_given_top1(p, double(k - 1), shape) < h * (1 + 1e-12));  // ties: rounding
      }
    }
  // The geometric law's quantile is its closed form, the one SpecPipe's draws always used.
  for (double w : {0.1, 0.5, 0.95})
    CHECK(search::lower_rank_for_quantile(0.6, w, 0.0, 1LL << 40) ==
          (long long)(std::floor(std::log1p(-w) / std::log1p(-0.6)) + 2));
  // Heavier than the geometric tail at the same top-1 (the header's example).
  CHECK(search::rank_cdf_given_top1(0.8, 3, 0.0) >= 0.99);
  CHECK(search::rank_cdf_given_top1(0.8, 35, 0.9) < 0.99);
  CHECK(search::rank_cdf_given_top1(0.8, 36, 0.9) >= 0.99);
  // Beyond 1 the law is refused (its listed probabilities would rise at a low top-1).
  AcceptanceProcessParams bad;
  bad.rank_tail_shape = 1.5;
  CHECK_THROWS_WITH(bad.validate("tail"), Catch::Contains("rank_tail_shape"));
}

TEST_CASE("rank tail: a log-logistic process's exact top-k hits match its sampler and SpecPipe's rank draws") {
  for (auto confidence : {search::DraftConfidence::constant, search::DraftConfidence::calibrated}) {
    const AcceptanceProcess process = log_logistic(0.7, 0.8, confidence);
    INFO("confidence " << search::to_string(confidence));
    CHECK(process.top_k_hit(1) == Approx(0.7));
    const int top_k = 32, n = 200000;
    // The position sampler (probability traces): the target's rank among 32 listed candidates.
    search::AcceptanceSampler sampler(process, top_k, 7);
    std::vector<int> within(top_k + 1, 0);
    for (int i = 0; i < n; ++i) {
      const auto pos = sampler.next();
      if (pos.rank >= 0) ++within[std::size_t(pos.rank + 1)];
    }
    // SpecPipe's draws below a parent whose confidence the tree sets from the same process.
    const auto ranks = search::specpipe::RankModel::from_process(process, 16, 3);
    std::mt19937_64 rng(5);
    std::vector<int> tree(17, 0);
    for (int i = 0; i < n; ++i) {
      search::specpipe::TreeNode parent;
      parent.key = std::uint64_t(i) * 0x9E3779B97F4A7C15ULL;
      ranks.set_confidence(parent, 0);
      const long long r = ranks.draw_below(rng, 1, parent);
      if (r <= 16) ++tree[std::size_t(r)];
    }
    int cum = 0, cum_tree = 0;
    for (int k = 1; k <= top_k; ++k) {
      cum += within[std::size_t(k)];
      if (k <= 16) cum_tree += tree[std::size_t(k)];
      INFO("k " << k);
      CHECK(double(cum) / n == Approx(process.top_k_hit(k)).margin(0.004));
      if (k <= 16) CHECK(double(cum_tree) / n == Approx(process.top_k_hit(k)).margin(0.004));
    }
    // The heavier tail leaves more beyond 32 candidates than a geometric one of the same top-1.
    CHECK(1 - process.top_k_hit(32) > 1 - log_logistic(0.7, 0.0, confidence).top_k_hit(32) + 0.01);
  }
}
