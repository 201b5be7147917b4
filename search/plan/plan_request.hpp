#pragma once
// What `specdse plan` was asked, read once from its flags and its workload file (a setting given
// in both is an error, never a silent pick): the setup every scheme runs on (system, target,
// drafts, acceptance), the context mix, the targets, the load and what ranks the candidates.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "search/plan/plan_request_rate.hpp"
#include "search/plan/plan_scheme.hpp"
#include "search/scenarios/scenario.hpp"

namespace search {

// Tokens a request decodes when a request rate is given without them (a chat answer's length).
constexpr long long kDefaultOutputTokens = 256;

// The percentile of the context mix at which the TBT and TTFT targets are checked by default:
// an SLO is a promise to (nearly) every request, and a mix's mean hides its long prompts.
constexpr double kDefaultSloPercentile = 99;

// Device memory in bytes per GiB (plan's tables and targets speak GiB).
constexpr double kGib = double(1ull << 30);

struct PlanRequest {
  PlanSetup setup;                  // at the mix's first context and the request's batch
  std::vector<long long> contexts;  // the context mix (one length, or several)
  std::vector<double> weights;      // each context's share of the tokens decoded
  std::optional<double> tbt_limit_ms, ttft_limit_ms, headroom_gib;
  double slo_percentile = kDefaultSloPercentile;  // where over the mix the TBT and TTFT targets hold
  std::optional<RequestRate> rate;  // serving at a request rate instead of a batch
  std::string rank_by = "tbt";      // tbt, throughput or ttft
  // The footer's words on where the acceptance comes from and on --hw's stack ("; ..." or empty).
  std::string band_note, stack_note;

  bool mix() const { return contexts.size() > 1; }
};

// The request from plan's scenario context; InputError on a conflict or a bad value. `started`
// dates the progress lines of a statistics fit.
PlanRequest read_plan_request(const search::ScenarioContext& ctx, std::chrono::steady_clock::time_point started);

// "p99", "p99.5": a percentile as SLOs name it.
std::string percentile_name(double p);

}  // namespace search
