#pragma once
// SpecPipe's stated level accuracy as a calibration target of a hit curve (paper 002 §1, §4.1).
//
// Fig. 7's text gives the 1B draft's hit rate at top-32 only, so its curve's slope was borrowed
// from the 8B draft's curves, which put SpecPipe's simulated level hit near 0.76, while the
// paper states its tree's accuracy (the share of tree levels holding the target's token, exactly
// what the simulated hit rate counts) beyond 95%. A level-accuracy point fixes the second
// parameter: the curve keeps its own top-k point and takes the slope at which the simulated
// level hit of plan_specpipe (pipeline_plan.hpp) at that width, candidate count and stage count
// equals the stated accuracy. Lower slopes put more of the draft's mass on its first candidates,
// so the level hit falls monotonically with the slope and a bisection finds it.
#include <string>
#include <vector>

#include "search/scenarios/specpipe/hit_curve.hpp"
#include "search/scenarios/specpipe/speculative_tree.hpp"

namespace search::specpipe {

struct LevelAccuracyPoint {
  std::string curve;
  int width = 64, candidates = 16, stages = 8;
  double accuracy = 0.95;
};

// Rows of a CSV with columns curve,width,candidates,stages,accuracy ('#' comments); InputError
// naming the file and line otherwise.
std::vector<LevelAccuracyPoint> load_level_accuracy(const std::string& path);

// SpecPipe's simulated level hit (greedy verification) for a curve.
double simulated_level_accuracy(const HitCurve& curve, const LevelAccuracyPoint& at, DraftConfidence confidence,
                                long long tokens = 1500, std::uint64_t seed = 1);

// Replaces the slope of every curve that has a level-accuracy point (its location follows from
// the curve's own point at the largest k, which stays on the curve) so that the simulated level
// hit equals the accuracy; other curves are unchanged. InputError when no slope in [0.05, 20]
// reaches the accuracy.
HitFit calibrate_level_accuracy(HitFit fit, const std::vector<HitPoint>& points,
                                const std::vector<LevelAccuracyPoint>& levels, DraftConfidence confidence);

}  // namespace search::specpipe
