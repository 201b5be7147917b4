#include "search/scenarios/specpipe/level_accuracy.hpp"
#include "models/input_file.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>

#include "models/config_error.hpp"
#include "search/scenarios/specpipe/hit_curve.hpp"
#include "search/scenarios/specpipe/pipeline_plan.hpp"
#include "sim/io/csv.hpp"

namespace search::specpipe {
namespace {

using models::InputError;

}  // namespace

std::vector<LevelAccuracyPoint> load_level_accuracy(const std::string& path) {
  std::ifstream in = models::open_input_file(path, "level accuracy");
  if (!in) throw InputError(fmt::format("{}: cannot open the level-accuracy file", path));
  sim::CsvReadOptions options;
  options.trim = true;
  sim::CsvReader reader(in, path, options);
  std::vector<std::string> header;
  std::vector<LevelAccuracyPoint> out;
  for (sim::CsvRecord record; reader.next(record);) {
    if (header.empty()) {
      header = record.cells;
      if (header != std::vector<std::string>{"curve", "width", "candidates", "stages", "accuracy"})
        throw InputError(fmt::format("{}: header: expected curve,width,candidates,stages,accuracy", path));
      continue;
    }
    const auto& c = record.cells;
    if (c.size() != header.size())
      throw InputError(fmt::format("{}:{}: {} cells, the header has {}", path, record.line, c.size(), header.size()));
    LevelAccuracyPoint p;
    p.curve = c[0];
    auto integer = [&](std::size_t i, int lo, int hi) {
      char* end = nullptr;
      const long v = std::strtol(c[i].c_str(), &end, 10);
      if (c[i].empty() || *end != '\0' || v < lo || v > hi)
        throw InputError(fmt::format("{}:{}: {}: expected an integer in [{}, {}], got '{}'", path, record.line,
                                     header[i], lo, hi, c[i]));
      return int(v);
    };
    p.width = integer(1, 1, 4096);
    p.candidates = integer(2, 1, 4096);
    p.stages = integer(3, 1, 1024);
    char* end = nullptr;
    p.accuracy = std::strtod(c[4].c_str(), &end);
    if (c[4].empty() || *end != '\0' || !(p.accuracy > 0 && p.accuracy < 1))
      throw InputError(fmt::format("{}:{}: accuracy: expected a number in (0, 1), got '{}'", path, record.line, c[4]));
    if (p.curve.empty()) throw InputError(fmt::format("{}:{}: curve: empty", path, record.line));
    out.push_back(p);
  }
  // An empty file is not "no stated accuracy": that is `none`, said as such.
  if (header.empty()) throw InputError(fmt::format("{}: no header and no rows (give none for no stated accuracy)", path));
  if (out.empty()) throw InputError(fmt::format("{}: no rows under the header (give none for no stated accuracy)", path));
  return out;
}

double simulated_level_accuracy(const HitCurve& curve, const LevelAccuracyPoint& at, DraftConfidence confidence,
                                long long tokens, std::uint64_t seed) {
  const RankModel ranks = RankModel::from_curve(curve, std::max(at.candidates, kMinRankCandidates), confidence);
  SpecPipeParams p;
  p.stages = at.stages;
  p.width = at.width;
  p.candidates = at.candidates;
  p.tokens = tokens;
  p.seed = seed;
  return plan_specpipe(p, ranks).hit_rate();
}

HitFit calibrate_level_accuracy(HitFit fit, const std::vector<HitPoint>& points,
                                const std::vector<LevelAccuracyPoint>& levels, DraftConfidence confidence) {
  std::map<std::string, int> seen;
  for (const auto& level : levels) {
    if (seen[level.curve]++) throw InputError(fmt::format("level accuracy: curve '{}' has two points", level.curve));
    HitCurve* curve = nullptr;
    for (auto& c : fit.curves)
      if (c.name == level.curve) curve = &c;
    if (!curve) continue;  // a curve this run does not use
    // The anchor: the curve's point at its largest k (mean logit of the points there).
    int anchor_k = 0;
    for (const auto& p : points)
      if (p.curve == level.curve && p.hit > 0 && p.hit < 1) anchor_k = std::max(anchor_k, p.k);
    double anchor_logit = 0;
    int n = 0;
    for (const auto& p : points)
      if (p.curve == level.curve && p.k == anchor_k && p.hit > 0 && p.hit < 1) anchor_logit += logit(p.hit), ++n;
    if (n == 0) throw InputError(fmt::format("level accuracy: curve '{}' has no hit point to anchor it", level.curve));
    anchor_logit /= n;
    auto with_slope = [&](double b) { return HitCurve{level.curve, anchor_logit - b * std::log(double(anchor_k)), b}; };
    auto hit = [&](double b) { return simulated_level_accuracy(with_slope(b), level, confidence); };
    // Bisection in log b over [0.05, 20] (the hit-curve fit's slope bounds).
    double lo = std::log(0.05), hi = std::log(20.0);
    const double at_lo = hit(std::exp(lo)), at_hi = hit(std::exp(hi));
    if (!(at_lo >= level.accuracy && at_hi <= level.accuracy))
      throw InputError(fmt::format("level accuracy: curve '{}' cannot reach {} (simulated {:.3f} to {:.3f} over its slopes)",
                                   level.curve, level.accuracy, at_hi, at_lo));
    for (int i = 0; i < 14; ++i) {
      const double mid = 0.5 * (lo + hi);
      (hit(std::exp(mid)) >= level.accuracy ? lo : hi) = mid;
    }
    *curve = with_slope(std::exp(0.5 * (lo + hi)));
  }
  return fit;
}

}  // namespace search::specpipe
