#include "search/acceptance/rank_tail.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace search {
namespace {

// Points per panel of the composite rule: 16 keeps the relative error near 1e-9 even for ranks in
// the hundreds, whose integrand p (1 - p)^r peaks sharply (8 points left 1e-6 at rank 200).
constexpr int kGaussPoints = 16;

struct GaussLegendre {
  std::array<double, kGaussPoints> x{}, w{};  // on [-1, 1]
};

// The Gauss-Legendre nodes and weights by Newton's method on the Legendre polynomial (the
// textbook construction, computed once rather than copied as constants).
GaussLegendre make_gauss_legendre() {
  GaussLegendre g;
  const int n = kGaussPoints;
  for (int i = 0; i < n; ++i) {
    double z = std::cos(M_PI * (i + 0.75) / (n + 0.5)), dp = 0;
    for (int iter = 0; iter < 100; ++iter) {
      double p0 = 1, p1 = 0;
      for (int j = 1; j <= n; ++j) {
        const double p2 = p1;
        p1 = p0;
        p0 = ((2.0 * j - 1) * z * p1 - (j - 1.0) * p2) / j;
      }
      dp = n * (z * p0 - p1) / (z * z - 1);
      const double step = p0 / dp;
      z -= step;
      if (std::abs(step) < 1e-15) break;
    }
    g.x[std::size_t(i)] = z;
    g.w[std::size_t(i)] = 2 / ((1 - z * z) * dp * dp);
  }
  return g;
}

const GaussLegendre& gauss_legendre() {
  static const GaussLegendre g = make_gauss_legendre();
  return g;
}

}  // namespace

double rank_cdf_given_top1(double p, double k, double tail_shape) {
  if (k <= 0 || p <= 0) return 0;
  if (p >= 1) return 1;
  if (tail_shape <= 0) return -std::expm1(k * std::log1p(-p));
  const double hit = p * std::pow(k, tail_shape);
  return hit / (hit + 1 - p);
}

double rank_probability_given_top1(double p, int rank, double tail_shape) {
  if (rank == 0) return std::clamp(p, 0.0, 1.0);
  if (p >= 1 || p <= 0) return 0;
  if (tail_shape <= 0) return p * std::pow(1 - p, rank);
  return rank_cdf_given_top1(p, rank + 1.0, tail_shape) - rank_cdf_given_top1(p, double(rank), tail_shape);
}

long long lower_rank_for_quantile(double p, double w, double tail_shape, long long beyond) {
  if (!(w < 1) || !(p > 0) || !(p < 1)) return beyond;
  double rank = 0;
  if (tail_shape <= 0) {
    // The lower ranks' CDF is 1 - (1 - p)^(j - 1): the smallest j with it past w.
    rank = std::floor(std::log1p(-w) / std::log1p(-p)) + 2;
  } else {
    // H(j) = p + w (1 - p) with H(k) = p k^b / (p k^b + 1 - p): k^b = (1 - p) h / (p (1 - h)).
    const double h = p + w * (1 - p);
    rank = std::max(2.0, std::ceil(std::pow((1 - p) * h / (p * (1 - h)), 1 / tail_shape)));
  }
  return rank >= double(beyond) ? beyond : (long long)rank;
}

double calibrated_top1_expectation(double a, const std::function<double(double)>& f) {
  if (a >= 1) return f(1.0);
  if (a <= 0) return f(0.0);
  const double c = a / (1 - a);
  const GaussLegendre& g = gauss_legendre();
  // E[f(P)] = integral over s >= 0 of f(exp(-s)) c exp(-c s) ds.
  auto panel = [&](double lo, double hi) {
    const double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
    double sum = 0;
    for (int i = 0; i < kGaussPoints; ++i) {
      const double s = mid + half * g.x[std::size_t(i)];
      sum += g.w[std::size_t(i)] * f(std::exp(-s)) * c * std::exp(-c * s);
    }
    return half * sum;
  };
  const double end = 40 / c;
  double lo = 0, hi = std::min(end, 1e-4 / std::max(1.0, c));
  double total = 0;
  while (lo < end) {
    total += panel(lo, hi);
    lo = hi;
    hi = std::min(end, 2 * hi);
  }
  return total;
}

}  // namespace search
