#include "search/scenarios/specpipe/level_hit_boundary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace search::specpipe {
namespace {

// Factors on the base process's top-1 acceptances: from a poor draft to a better one than fitted.
const std::vector<double>& scanned_scales() {
  static const std::vector<double> f{0.35, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0, 1.05};
  return f;
}

}  // namespace

std::string level_hit_boundary(const TimingSetup& setup, const StageTimer& timer, const SpecPipeParams& best,
                               const std::vector<ScenarioResult>& fixed, bool with_static_tree, int max_k,
                               const AcceptanceProcess& base) {
  struct Point {
    double level_hit, specpipe_s;
    std::map<std::string, double> other_s;  // method -> TBT
  };
  std::vector<Point> points;
  for (double f : scanned_scales()) {
    AcceptanceProcessParams params = base.params();
    params.alpha_easy = std::min(1.0, params.alpha_easy * f);
    params.alpha_hard = std::min(params.alpha_easy, params.alpha_hard * f);
    const AcceptanceProcess process(params, base.source());
    const RankModel ranks = RankModel::from_process(process, max_k, best.seed);
    const ScenarioResult sp = run_specpipe(setup, timer, best, ranks, 1);
    Point pt{sp.hit_rate, sp.timed.tbt.mean_s, {}};
    for (const auto& other : fixed) pt.other_s[other.method] = other.timed.tbt.mean_s;
    if (with_static_tree)
      pt.other_s["pp+specinfer-tree"] = run_static_tree(setup, timer, best.tokens, ranks, best.seed, 1).timed.tbt.mean_s;
    points.push_back(std::move(pt));
  }
  std::vector<std::string> faster_from, never, always;
  for (const auto& [method, unused] : points.front().other_s) {
    (void)unused;
    // The last crossing from slower to faster as the level hit grows (SpecPipe's gain grows with it).
    double from = -1;
    bool slower_at_end = false;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const double d = points[i].specpipe_s - points[i].other_s.at(method);
      slower_at_end = d > 0;
      if (i == 0) continue;
      const double d0 = points[i - 1].specpipe_s - points[i - 1].other_s.at(method);
      if (d0 > 0 && d <= 0) {
        const double t = d0 / (d0 - d);
        from = points[i - 1].level_hit + t * (points[i].level_hit - points[i - 1].level_hit);
      }
    }
    if (slower_at_end) never.push_back(method);
    else if (from < 0) always.push_back(method);
    else faster_from.push_back(fmt::format("{} from a level hit of {:.3f}", method, from));
  }
  std::string out = fmt::format("level-hit boundary (SpecPipe w={} k={} against each method; {} with its top-1 "
                                "acceptance scaled {}-{}x, level hits {:.3f}-{:.3f}):",
                                best.width, best.candidates, base.source(), scanned_scales().front(),
                                scanned_scales().back(), points.front().level_hit, points.back().level_hit);
  if (!faster_from.empty()) out += " faster than " + fmt::format("{}", fmt::join(faster_from, ", "));
  if (!always.empty()) out += fmt::format("{} faster than {} throughout the scan", faster_from.empty() ? "" : ";", fmt::join(always, ", "));
  if (!never.empty()) out += fmt::format("{} still slower than {} at the highest", faster_from.empty() && always.empty() ? "" : ";",
                                         fmt::join(never, ", "));
  return out;
}

}  // namespace search::specpipe
