#pragma once
// Paper 000's analysis model: primary roofline P(x) = x / T_v(x), discounted roofline
// P_disc(x) = x / (T_v + T_d), acceptance rate AR = AAT / x, effective performance
// P_eff = AAT / (T_v + T_d), the ridge x_R and the case analysis of eqs (9)-(15).
#include <string>
#include <vector>

namespace roofline {

struct PerfPoint {
  int x = 1;
  double t_verify_s = 0;
  double t_draft_s = 0;
  double aat = 1;
  double p() const { return x / t_verify_s; }
  double p_disc() const { return x / (t_verify_s + t_draft_s); }
  double ar() const { return aat / x; }
  double p_eff() const { return aat / (t_verify_s + t_draft_s); }
};

enum class Regime {
  compute_bound,  // compute-bound already at x = 1: SD cannot help (eq 9)
  memory_bound,   // memory-bound up to AAT saturation: larger x always better (eqs 10-12)
  mixed,          // memory-bound for small x, compute-bound past the ridge (eqs 13-15)
};
std::string to_string(Regime r);

// Ridge of the primary roofline: where the memory line x / T_v(1) meets the compute roof
// P_max = max_x P(x). points must include x = 1.
double ridge_point(const std::vector<PerfPoint>& points);
// x_saturation: the x at which the AAT curve saturates (e.g. the naive set).
Regime classify(double ridge_x, double x_saturation);

}  // namespace roofline
