#pragma once
// The table of an acceptance-process fit to a statistics file: one row per (fit, statistic) with
// the fitted parameters, the published value, the process's prediction, the residual, its
// tolerance and whether it is fitted or only checked; the footer names the band the statistics
// leave open. `specdse fit --statistics` prints it and `specdse.fit(statistics=...)` returns it;
// one builder keeps the two the same.
#include <string>

#include "experiments/output/table.hpp"
#include "search/acceptance/acceptance_statistics.hpp"

namespace experiments {

Table statistics_fit_table(const search::StatisticsFile& file, const search::StatisticsFitReport& report);

// The file's tolerance as the footer and the band's header state it: "0.03", or
// "0.03; 4 statistics: 0.1" where rows carry tolerances of their own.
std::string statistics_tolerance_summary(const search::StatisticsFile& file);

// The header of the band file a fit writes: who wrote it (`origin`) and the tolerance every
// member meets.
std::string statistics_band_header(const search::StatisticsFile& file, const std::string& origin);

}  // namespace experiments
