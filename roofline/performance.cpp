#include "roofline/performance.hpp"

#include <algorithm>
#include <stdexcept>

namespace roofline {

std::string to_string(Regime r) {
  switch (r) {
    case Regime::compute_bound: return "compute-bound";
    case Regime::memory_bound: return "memory-bound";
    case Regime::mixed: return "mixed";
  }
  return "?";
}

double ridge_point(const std::vector<PerfPoint>& points) {
  const auto one = std::find_if(points.begin(), points.end(), [](const PerfPoint& p) { return p.x == 1; });
  if (one == points.end()) throw std::invalid_argument("ridge_point: needs the x = 1 point");
  double p_max = 0;
  for (const auto& p : points) p_max = std::max(p_max, p.p());
  return p_max * one->t_verify_s;
}

Regime classify(double ridge_x, double x_saturation) {
  // Below 1.5 the roofline has no memory-bound segment worth a second token.
  if (ridge_x < 1.5) return Regime::compute_bound;
  if (ridge_x >= x_saturation) return Regime::memory_bound;
  return Regime::mixed;
}

}  // namespace roofline
