#include "search/plan/plan_ranking.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "search/plan/plan_context_mix.hpp"

namespace search {

double plain_tbt_s(const std::vector<PlanCandidate>& all) {
  double plain_tbt = 0;
  for (const auto& c : all)
    if (c.from_scheme == "plain" && c.scheme == "plain" && c.ok() && plain_tbt == 0) plain_tbt = c.tbt_s;
  return plain_tbt;
}

namespace {
// The serving check's percentile (50, 90 or 99) a target at `p` is held to: the nearest at or above.
int served_level(double p) { return p > 90 ? 99 : p > 50 ? 90 : 50; }
double at_level(int level, double p50, double p90, double p99) { return level == 99 ? p99 : level == 90 ? p90 : p50; }
}  // namespace

void apply_targets(const PlanRequest& q, std::vector<PlanCandidate>& all) {
  const auto& tbt_limit_ms = q.tbt_limit_ms;
  const auto& ttft_limit_ms = q.ttft_limit_ms;
  const auto& headroom_gib = q.headroom_gib;
  const double slo_percentile = q.slo_percentile;
  // The workload's targets: a candidate that misses one is listed with the reason, not ranked.
  // The TBT and TTFT targets are checked at the percentile over the mix's contexts (each by its
  // share), so a mix of short and long prompts is held to its long ones (plan_context_mix.hpp).
  const bool mix = q.mix();
  auto at_percentile = [&](const PlanCandidate& c, double PlanCandidate::ContextTimes::*member, long long& context) {
    return mix_percentile(c.per_context, member, slo_percentile, context);
  };
  auto where_mix = [&](long long context) {
    return mix ? fmt::format(" at {} (context {})", percentile_name(slo_percentile), context) : std::string();
  };
  const int level = served_level(slo_percentile);
  for (auto& c : all) {
    if (!c.ok()) continue;
    long long tbt_context = 0, ttft_context = 0;
    double tbt_s = c.per_context.empty() ? c.tbt_s : at_percentile(c, &PlanCandidate::ContextTimes::tbt_s, tbt_context);
    double ttft_s = c.per_context.empty() ? c.ttft_s : at_percentile(c, &PlanCandidate::ContextTimes::ttft_s, ttft_context);
    // At a request rate the targets hold for what the requests saw in the serving simulation, at
    // the percentile asked (served_level), not for the batch's mean.
    if (c.served) {
      const PlanCandidate::Served& v = *c.served;
      tbt_s = at_level(level, v.tbt_p50_s, v.tbt_p90_s, v.tbt_p99_s);
      ttft_s = at_level(level, v.ttft_p50_s, v.ttft_p90_s, v.ttft_p99_s);
    }
    auto where = [&](long long context) {
      return c.served ? fmt::format(" in the serving simulation at p{}", level) : where_mix(context);
    };
    if (tbt_limit_ms && tbt_s * 1e3 > *tbt_limit_ms) {
      c.status = fmt::format("misses the TBT limit{}: {:.3g} ms > {:.3g} ms", where(tbt_context), tbt_s * 1e3, *tbt_limit_ms);
      c.target_excess = tbt_s * 1e3 / *tbt_limit_ms;
    } else if (ttft_limit_ms && !c.system_placement) {
      c.status = "TTFT not timed: the baseline regroups the devices (no TTFT limit can be checked)";
    } else if (ttft_limit_ms && ttft_s * 1e3 > *ttft_limit_ms) {
      c.status =
          fmt::format("misses the TTFT limit{}: {:.4g} ms > {:.4g} ms", where(ttft_context), ttft_s * 1e3, *ttft_limit_ms);
      c.target_excess = ttft_s * 1e3 / *ttft_limit_ms;
    }
    else if (headroom_gib && c.system_placement && c.memory_checked && c.min_free_bytes < *headroom_gib * kGib) {
      c.status = fmt::format("misses the memory headroom: {:.3g} GiB free on {} < {:.3g} GiB", c.min_free_bytes / kGib,
                             c.fullest_device, *headroom_gib);
      // How far off, as the time targets' ratio: the headroom asked over the memory left.
      c.target_excess = *headroom_gib * kGib / std::max(c.min_free_bytes, 1.0);
    }
  }
}

void rank_candidates(const PlanRequest& q, std::vector<PlanCandidate>& all) {
  const std::string& rank_by = q.rank_by;
  // Timed candidates by time between tokens (or throughput, or TTFT); the rest after them, in
  // scheme order.
  auto key = [&](const PlanCandidate& c) {
    if (rank_by == "throughput") return -c.batch / c.tbt_s;
    // A candidate without a TTFT of its own (a regrouped baseline) goes after those with one.
    if (rank_by == "ttft") return c.ttft_s > 0 ? c.ttft_s : std::numeric_limits<double>::infinity();
    return c.tbt_s;
  };
  std::stable_sort(all.begin(), all.end(), [&](const PlanCandidate& a, const PlanCandidate& b) {
    if (a.ok() != b.ok()) return a.ok();
    return a.ok() && key(a) < key(b);
  });
}

}  // namespace search
