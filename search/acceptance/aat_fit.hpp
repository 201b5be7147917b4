#pragma once
// AAT(x) = A + B * ln(x - C), fitted with Ceres (paper 000 eq 3). C < min x always holds:
// the solver works on u with C = min_x - exp(u).
#include <string>
#include <utility>
#include <vector>

namespace search {

struct AatPoint {
  double x = 0;
  double aat = 0;
};

struct AatFit {
  double a = 0, b = 0, c = 0;
  double r2 = 0, rmse = 0;
  int n = 0;
  // AAT at x: exactly 1 at x = 1 (autoregressive), else the curve clamped to [1, x].
  double operator()(double x) const;
  // dAAT/dx of the curve (used for the "naive set" rule).
  double slope(double x) const { return b / (x - c); }
};

// Throws models::InputError with `what` in the message when fewer than three distinct x are
// given, any point is not finite, or the fit fails to converge to finite parameters.
AatFit fit_aat(const std::vector<AatPoint>& points, const std::string& what = "AAT fit");

}  // namespace search
