#pragma once
// plan's answer as a result: one row per candidate (ranked ones first, numbered), and the footer
// (the verdict, the workload, the inputs, the caveats) with the same facts as typed fields for
// JSON, CSV and Python (ScenarioResult::meta); the winner's timeline when a trace is wanted.
#include <cstddef>
#include <vector>

#include "search/plan/plan_request.hpp"
#include "search/plan/plan_scheme.hpp"
#include "search/scenarios/scenario.hpp"

namespace search {

// `all` ranked (rank_candidates), `plain_tbt` plain decoding's (0: none), `schemes` how many
// schemes ran.
search::ScenarioResult plan_result(const PlanRequest& q, const std::vector<PlanCandidate>& all, double plain_tbt,
                                   std::size_t schemes);

}  // namespace search
