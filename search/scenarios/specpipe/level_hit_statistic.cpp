// Statistic kind specpipe_level_hit: the share of SpecPipe's tree levels that hold the target's
// token (paper 002's prediction accuracy, §4.1 and Fig. 10), simulated by SpecPipe's own dynamic
// tree under the acceptance process being fitted, so that a published level accuracy constrains
// the process through the algorithm that produced it and is never read as a top-1 rate.
#include <algorithm>

#include <fmt/format.h>

#include "search/acceptance/acceptance_statistics.hpp"
#include "search/scenarios/specpipe/pipeline_plan.hpp"
#include "search/scenarios/specpipe/speculative_tree.hpp"

namespace search::specpipe {
namespace {

constexpr double kMaxLevelHitWork = 16.0 * 4000 * 64 * 16;

const StatisticKindRegistration specpipe_level_hit_kind(
    "specpipe_level_hit", {"width", "candidates", "stages", "tokens", "seed"},
    "share of SpecPipe's tree levels holding the target's token at width w, k candidates and S stages, from a "
    "simulated greedy run (paper 002's level accuracy)",
    [](const models::YamlReader& row) {
      SpecPipeParams p;
      p.width = row.int_in("width", 1, 4096);
      p.candidates = row.int_in("candidates", 1, 4096);
      p.stages = row.int_in("stages", 1, 1024);
      p.tokens = row.int_in_or("tokens", 100, 1000000, 4000);
      p.seed = std::uint64_t(row.int_in_or("seed", 0, 1 << 30, 1));
      // A fit evaluates the statistic hundreds of times, each a simulated run of `tokens` tokens
      // through w x k candidates: the product is bounded so that a fit stays within minutes.
      const double work = double(p.tokens) * double(p.width) * double(p.candidates);
      if (work > kMaxLevelHitWork)
        row.fail("tokens", fmt::format("tokens x width x candidates at most {:g} (16 times paper 002's 4000 x 64 x 16)",
                                       kMaxLevelHitWork),
                 fmt::format("{} x {} x {} = {:g}", p.tokens, p.width, p.candidates, work));
      statistic_value_in(row, 0, 1, "a share of tree levels: 0 to 1");
      return std::function<double(const AcceptanceProcess&)>([p](const AcceptanceProcess& process) {
        return plan_specpipe(p, RankModel::from_process(process, std::max(p.candidates, kMinRankCandidates), p.seed)).hit_rate();
      });
    });

}  // namespace
}  // namespace search::specpipe
