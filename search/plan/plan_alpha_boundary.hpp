#pragma once
// Where plan's ranking turns with --alpha (the draft models' per-token acceptance): the best
// candidate whose acceptance is --alpha against the best one whose acceptance is measured or
// absent, and the alpha at which their times between tokens cross, found by rerunning the
// alpha-driven candidate's scheme (bisection; TBT falls as alpha grows).
#include <string>
#include <vector>

#include "search/plan/plan_scheme.hpp"

namespace search {

// The sentence for plan's footer; when one side has no timed candidate, a sentence saying so.
std::string alpha_boundary(const PlanSetup& s, const std::vector<PlanCandidate>& ranked);

}  // namespace search
