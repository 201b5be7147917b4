#include "search/scenarios/specpipe/specpipe_acceptance.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "search/scenarios/specpipe/hit_curve.hpp"
#include "search/scenarios/specpipe/level_accuracy.hpp"

namespace search::specpipe {
namespace {

SpecPipeAcceptance from_hit_curve(const SpecPipeAcceptanceRequest& rq, const std::string& why) {
  const DraftConfidence confidence = parse_draft_confidence(rq.confidence == "auto" ? "calibrated" : rq.confidence);
  const std::vector<HitPoint> points =
      load_hit_points(rq.hit_points.empty() ? rq.config_dir + "/acceptance/specpipe_hit_points.csv" : rq.hit_points);
  // The stated level accuracy (paper 002 §1, §4.1) fixes the slope of the curves it names
  // (level_accuracy.hpp); "none" keeps the slope the fit shares between curves.
  const HitFit fit =
      rq.level_accuracy == "none"
          ? fit_hit_curves(points, "hit curve fit")
          : calibrate_level_accuracy(fit_hit_curves(points, "hit curve fit"), points,
                                     load_level_accuracy(rq.level_accuracy.empty()
                                                             ? rq.config_dir + "/acceptance/specpipe_level_accuracy.csv"
                                                             : rq.level_accuracy),
                                     confidence);
  const HitCurve& curve = fit.curve(rq.hit_curve.empty() ? rq.draft : rq.hit_curve);
  SpecPipeAcceptance a{rq.hit_rate ? RankModel::fixed(*rq.hit_rate, curve, rq.max_k)
                                   : RankModel::from_curve(curve, rq.max_k, confidence),
                       {}, std::nullopt, "", "", ""};
  a.description = fmt::format("{}{}; hit curve '{}' H(k)=1/(1+exp(-({:.3f}+{:.3f} ln k))), fit R^2={:.4f} over {} points",
                              a.central.describe(), why, curve.name, curve.a, curve.b, fit.r2, fit.n);
  a.column = rq.hit_rate ? fmt::format("fixed hit rate {}", *rq.hit_rate)
                         : fmt::format("hit curve {} ({} points)", curve.name, fit.n);
  return a;
}

}  // namespace

namespace {

SpecPipeAcceptance chosen_acceptance(const SpecPipeAcceptanceRequest& rq);

}  // namespace

SpecPipeAcceptance specpipe_acceptance(const SpecPipeAcceptanceRequest& rq) {
  SpecPipeAcceptance a = chosen_acceptance(rq);
  // Paper 002's hits were measured against its 70B target; a user's own source (a band, a hit
  // rate, a trace, another hit-points file) is theirs to vouch for.
  const bool default_source = !rq.hit_rate && rq.trace.empty() && rq.hit_points.empty() &&
                              (rq.acceptance == "auto" || rq.acceptance == "hit-curve");
  if (default_source && !rq.target.empty() && rq.target != kPaper002Target) {
    a.borrowed = fmt::format("measured against {}, not {}", kPaper002Target, rq.target);
    a.column = fmt::format("borrowed ({}): {}", a.borrowed, a.column);
    a.description = fmt::format("borrowed ({}): {}", a.borrowed, a.description);
  }
  return a;
}

namespace {

SpecPipeAcceptance chosen_acceptance(const SpecPipeAcceptanceRequest& rq) {
  if (rq.hit_rate && !rq.trace.empty()) throw models::InputError("--hit-rate and --trace: give one source of hits");
  const bool chosen = rq.acceptance != "auto";
  if (chosen && (rq.hit_rate || !rq.trace.empty()))
    throw models::InputError(fmt::format("--acceptance {} and --{}: give one source of hits", rq.acceptance,
                                         rq.hit_rate ? "hit-rate" : "trace"));
  if (!rq.trace.empty()) {
    SpecPipeAcceptance a{RankModel::from_probability_trace(read_probability_trace(rq.trace), rq.trace_k), {}, std::nullopt,
                         "", "", ""};
    a.description = a.central.describe();
    a.column = "probability trace " + rq.trace;
    return a;
  }
  // A fixed hit rate is rank 1 or nothing at every level: the curve's shape, the level accuracy it
  // is fitted to and the draft's confidence spread would all be ignored.
  if (rq.hit_rate)
    for (const auto& [given, flag] : {std::pair{!rq.hit_curve.empty(), "--hit-curve"},
                                      std::pair{!rq.level_accuracy.empty(), "--level-accuracy"},
                                      std::pair{rq.confidence != "auto", "--confidence"}})
      if (given)
        throw models::InputError(fmt::format("--hit-rate and {}: a fixed hit rate takes no hit curve (rank 1 with "
                                             "that probability at every level)", flag));
  if (rq.hit_rate || rq.acceptance == "hit-curve") return from_hit_curve(rq, "");
  // The hit curve's own inputs choose it (under auto), or contradict a band named explicitly.
  const char* curve_input = !rq.hit_points.empty() ? "--hit-points"
                            : !rq.hit_curve.empty() ? "--hit-curve"
                            : !rq.level_accuracy.empty() ? "--level-accuracy"
                            : rq.confidence != "auto" ? "--confidence"
                                                      : nullptr;
  if (curve_input && chosen)
    throw models::InputError(fmt::format("{}: applies to the hit curve (--acceptance hit-curve), not to the acceptance "
                                         "process band '{}'",
                                         curve_input, rq.acceptance));
  if (curve_input) return from_hit_curve(rq, "");
  std::string band_name = rq.acceptance;
  if (!chosen) {
    if (rq.draft != kPaper002Draft)
      return from_hit_curve(rq, fmt::format(" (no acceptance process band is fitted for draft {}: --acceptance BAND "
                                            "names one)", rq.draft));
    band_name = kPaper002Band;
  }
  const ProcessBand band = resolve_process_band(band_name, rq.config_dir, "--acceptance");
  const auto ranks_of = [&](const ProcessBandMember& m) {
    return RankModel::from_process(AcceptanceProcess(m.params, band.name), rq.max_k, rq.seed);
  };
  SpecPipeAcceptance a{ranks_of(band.central()), {}, AcceptanceProcess(band.central().params, band.name), "", "", ""};
  for (const auto* m : band.others()) a.others.push_back(ranks_of(*m));
  a.description = fmt::format("acceptance process {} ({} fits consistent with {}{}{}; rows: central fit {}; low / high: "
                              "over the fits)",
                              band.name, band.members.size(), band.fitted_to,
                              band.left_open.empty() ? "" : fmt::format(", left open: {}", fmt::join(band.left_open, ", ")),
                              band.borrowed.empty() ? "" : fmt::format(", not fitted: {}", fmt::join(band.borrowed, "; ")),
                              band.central().params.describe());
  a.column = band.column();
  return a;
}

}  // namespace

}  // namespace search::specpipe
