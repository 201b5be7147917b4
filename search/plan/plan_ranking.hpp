#pragma once
// plan's verdict on its candidates: the workload's targets (a candidate that misses one is
// listed with the reason and by how much, not ranked) and the order (timed candidates by time
// between tokens, throughput or time to first token; the rest after them in scheme order).
#include <vector>

#include "search/plan/plan_request.hpp"
#include "search/plan/plan_scheme.hpp"

namespace search {

// Plain decoding's time between tokens on the system's placement (0 when it was not timed): the
// speed-ups' reference.
double plain_tbt_s(const std::vector<PlanCandidate>& all);

// Marks the timed candidates that miss a target of `q` (status and target_excess).
void apply_targets(const PlanRequest& q, std::vector<PlanCandidate>& all);

// Orders the candidates as plan ranks them (stable: equal keys keep scheme order).
void rank_candidates(const PlanRequest& q, std::vector<PlanCandidate>& all);

}  // namespace search
