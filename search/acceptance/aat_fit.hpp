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
  // The solver stopped on a bound of C: C = min x (the log's pole on the first point, as when
  // the data want C >= 1 with the AD anchor) or C = min x - e^8. The parameters are then the
  // best the model allows, not a free optimum; callers report it.
  bool c_at_bound = false;
  // AAT at x: exactly 1 at x <= 1 (autoregressive), else the curve clamped to [1, x]. Where the
  // curve is undefined (1 < x <= C, possible when the fit had no point below C) it is 1, the
  // limit of the clamped curve as x falls to C, so AAT stays finite, >= 1, <= x and monotone.
  double operator()(double x) const;
  // dAAT/dx of the curve (used for the "naive set" rule); 0 where the curve is undefined.
  double slope(double x) const { return x > c ? b / (x - c) : 0.0; }
};

// Throws models::InputError with `what` in the message when fewer than three distinct x are
// given, any point is not finite, or the fit fails to converge to finite parameters.
AatFit fit_aat(const std::vector<AatPoint>& points, const std::string& what = "AAT fit");

}  // namespace search
