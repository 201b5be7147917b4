#include "search/plan/plan_alpha_boundary.hpp"

#include <fmt/format.h>

#include <limits>

namespace search {
namespace {

// Bisection steps of the alpha boundary: 12 halvings of (0, 1) locate it within 0.0003.
constexpr int kBoundarySteps = 12;
constexpr double kAlphaMax = 0.999;

// Time between tokens of candidate `c` (same scheme and placement) rerun at acceptance `alpha`;
// infinity when it is not timed there.
double tbt_at_alpha(const PlanSetup& s, const PlanCandidate& c, double alpha) {
  PlanSetup at = s;
  at.alpha = alpha;
  at.want_trace = false;
  for (const auto& scheme : plan_schemes())
    if (scheme.name == c.from_scheme)
      for (const auto& other : scheme.run(at))
        if (other.ok() && other.scheme == c.scheme && other.placement == c.placement) return other.tbt_s;
  return std::numeric_limits<double>::infinity();
}

}  // namespace

std::string alpha_boundary(const PlanSetup& s, const std::vector<PlanCandidate>& ranked) {
  const PlanCandidate *driven = nullptr, *fixed = nullptr;
  for (const auto& c : ranked) {
    if (!c.ok()) continue;
    if (c.alpha_driven && !driven) driven = &c;
    if (!c.alpha_driven && !fixed) fixed = &c;
  }
  // Said, not left out: a user who gave --alpha asked where the ranking turns.
  if (!driven) return "alpha boundary not computed: no candidate timed here draws its acceptance from --alpha";
  if (!fixed) return "alpha boundary not computed: every timed candidate draws from --alpha (none to overtake)";
  const std::string who = fmt::format("{} ({})", driven->scheme, driven->placement);
  const std::string other = fmt::format("{}{}", fixed->scheme, fixed->parameters.empty() ? "" : " " + fixed->parameters);
  if (tbt_at_alpha(s, *driven, kAlphaMax) > fixed->tbt_s)
    return fmt::format("{} stays behind {} for any alpha up to {}", who, other, kAlphaMax);
  double lo = 0, hi = kAlphaMax;  // tbt(hi) <= fixed
  for (int i = 0; i < kBoundarySteps; ++i) {
    const double mid = 0.5 * (lo + hi);
    (tbt_at_alpha(s, *driven, mid) <= fixed->tbt_s ? hi : lo) = mid;
  }
  return fmt::format("{} beats {} when alpha >= {:.3f} (given {})", who, other, hi, *s.alpha);
}


}  // namespace search
