#include "experiments/output/statistics_fit_table.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

namespace experiments {

std::string statistics_tolerance_summary(const search::StatisticsFile& file) {
  std::map<double, int> own;
  for (const auto& s : file.spec.statistics)
    if (!std::isnan(s.tolerance)) ++own[s.tolerance];
  std::string tolerance = fmt::format("{}", file.tolerance);
  for (const auto& [tol, n] : own) tolerance += fmt::format("; {} statistic{}: {}", n, n == 1 ? "" : "s", tol);
  return tolerance;
}

std::string statistics_band_header(const search::StatisticsFile& file, const std::string& origin) {
  return fmt::format("Acceptance process band written by {}.\nEvery member reproduces the statistics within {}.", origin,
                     statistics_tolerance_summary(file));
}

Table statistics_fit_table(const search::StatisticsFile& file, const search::StatisticsFitReport& rep) {
  // `consistent` says whether the fit is in the band.
  Table t({"fit", "consistent", "alpha_easy", "alpha_hard", "easy_share", "persistence", "depth_decay", "calibration",
           "lower_rank_share", "rank_tail_shape", "mean_acceptance", "statistic", "value", "predicted", "residual",
           "tolerance", "fitted"});
  const auto& stats = file.spec.statistics;
  for (std::size_t i = 0; i < rep.fits.size(); ++i) {
    const auto& f = rep.fits[i];
    const auto& p = f.process.params();
    for (std::size_t s = 0; s < stats.size(); ++s)
      t.add_row({integer(static_cast<long long>(i)), text(rep.consistent[i] ? "yes" : "no"), num(p.alpha_easy),
                 num(p.alpha_hard), num(p.easy_share), num(p.persistence), num(p.depth_decay), num(p.calibration),
                 num(p.lower_rank_share), num(p.rank_tail_shape), num(f.process.mean_acceptance()),
                 text(stats[s].label), num(stats[s].value), num(f.predicted[s]), num(f.residuals[s]),
                 num(file.tolerance_of(s)), text(stats[s].fitted ? "yes" : "no (checked)")});
  }
  std::set<std::string> at_bound;
  for (std::size_t i = 0; i < rep.fits.size(); ++i)
    if (rep.consistent[i]) at_bound.insert(rep.fits[i].at_bound.begin(), rep.fits[i].at_bound.end());
  t.set_footer(fmt::format("{} of {} fits reproduce every statistic within {}; left open by the statistics: {}; "
                           "on a bound of their range: {}{}",
                           rep.band.members.size(), rep.fits.size(), statistics_tolerance_summary(file),
                           rep.band.left_open.empty() ? "nothing" : fmt::format("{}", fmt::join(rep.band.left_open, ", ")),
                           at_bound.empty() ? "nothing" : fmt::format("{}", fmt::join(at_bound, ", ")),
                           file.borrowed.empty() ? "" : fmt::format("; not fitted: {}", fmt::join(file.borrowed, "; "))));
  return t;
}

}  // namespace experiments
