#include "search/acceptance/aat_fit.hpp"

#include <ceres/ceres.h>

#include "search/acceptance/ceres_logging.hpp"
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "models/config_error.hpp"

namespace search {

namespace {

// Bounds of u = ln(x_min - C): C stays below the smallest x (the log's argument positive) and
// no more than e^8 below it (beyond that the curve is a straight line in ln x).
constexpr double kLogGapMin = -20.0;
constexpr double kLogGapMax = 8.0;

struct LogResidual {
  LogResidual(double x, double y, double x_min) : x_(x), y_(y), x_min_(x_min) {}
  template <typename T>
  bool operator()(const T* const ab, const T* const u, T* residual) const {
    const T c = T(x_min_) - ceres::exp(u[0]);
    residual[0] = ab[0] + ab[1] * ceres::log(T(x_) - c) - T(y_);
    return true;
  }
  double x_, y_, x_min_;
};

// Least-squares A, B for a fixed C (closed form), used to seed each Ceres start.
std::pair<double, double> linear_ab(const std::vector<AatPoint>& pts, double c) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& p : pts) {
    const double l = std::log(p.x - c);
    sx += l; sy += p.aat; sxx += l * l; sxy += l * p.aat;
  }
  const double n = double(pts.size());
  const double den = n * sxx - sx * sx;
  const double b = den != 0 ? (n * sxy - sx * sy) / den : 0;
  return {(sy - b * sx) / n, b};
}

}  // namespace

double AatFit::operator()(double x) const {
  if (!(x > 1.0) || !(x > c)) return 1.0;  // AD, or below the log's pole (also catches NaN x)
  const double v = a + b * std::log(x - c);
  if (std::isnan(v)) return 1.0;
  return std::clamp(v, 1.0, x);
}

AatFit fit_aat(const std::vector<AatPoint>& points, const std::string& what) {
  std::set<double> distinct;
  for (const auto& p : points) {
    if (!std::isfinite(p.x) || !std::isfinite(p.aat) || p.x < 1)
      throw models::InputError(fmt::format("{}: point (x={}, aat={}) is not a finite x >= 1", what, p.x, p.aat));
    distinct.insert(p.x);
  }
  if (distinct.size() < 3)
    throw models::InputError(fmt::format(
        "{}: need at least 3 distinct x to fit A + B ln(x - C), got {}", what, distinct.size()));
  const double x_min = *distinct.begin();

  AatFit best;
  double best_cost = INFINITY;
  // Multi-start over C: the log model is not convex in C.
  for (double log_gap : {-3.0, -1.0, 0.0, 1.0, 2.0, 3.0}) {
    double u[1] = {log_gap};
    const auto [a0, b0] = linear_ab(points, x_min - std::exp(log_gap));
    double ab[2] = {a0, b0};
    ceres::Problem problem;
    for (const auto& p : points)
      problem.AddResidualBlock(new ceres::AutoDiffCostFunction<LogResidual, 1, 2, 1>(
                                   new LogResidual(p.x, p.aat, x_min)),
                               nullptr, ab, u);
    problem.SetParameterLowerBound(u, 0, kLogGapMin);  // C at most x_min - 2e-9
    problem.SetParameterUpperBound(u, 0, kLogGapMax);  // C no lower than x_min - 2981
    ceres::Solver::Options opt;
    opt.max_num_iterations = 200;
    opt.function_tolerance = 1e-12;
    opt.parameter_tolerance = 1e-12;
    opt.logging_type = ceres::SILENT;
    ceres::Solver::Summary summary;
    quiet_ceres_logging();
    ceres::Solve(opt, &problem, &summary);
    if (!std::isfinite(summary.final_cost) || !std::isfinite(ab[0]) || !std::isfinite(ab[1])) continue;
    if (summary.final_cost < best_cost) {
      best_cost = summary.final_cost;
      best.a = ab[0];
      best.b = ab[1];
      best.c = x_min - std::exp(u[0]);
      // Within 1e-6 of a bound in u: the optimum lies on (or past) the bound.
      best.c_at_bound = u[0] < kLogGapMin + 1e-6 || u[0] > kLogGapMax - 1e-6;
    }
  }
  if (!std::isfinite(best_cost))
    throw models::InputError(fmt::format("{}: the fit did not converge to finite parameters", what));
  double mean = 0;
  for (const auto& p : points) mean += p.aat;
  mean /= double(points.size());
  double ss_res = 0, ss_tot = 0;
  for (const auto& p : points) {
    const double r = best.a + best.b * std::log(p.x - best.c) - p.aat;
    ss_res += r * r;
    ss_tot += (p.aat - mean) * (p.aat - mean);
  }
  best.n = int(points.size());
  best.rmse = std::sqrt(ss_res / double(points.size()));
  best.r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
  return best;
}

}  // namespace search
