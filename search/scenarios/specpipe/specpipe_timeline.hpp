#pragma once
// A pipeline plan (pipeline_plan.hpp) timed on the system timeline (sim/system/timeline): per
// step every stage's compute task on its device (seconds from the device engine on the stage
// graph: the stage's layers, `tokens` = the tokens it holds, the LM head on the last stage, as
// sim/system/system_step does), the emitted token sent from the last stage to every device that
// prunes and to the draft, a prune task per stage on the device's host thread (the cost is an
// input: paper 002 §4.2 measured ~5 ms), surviving embeddings sent stage to stage over the
// system's links (asynchronously with the prune, as the paper's implementation overlaps them),
// and the draft's passes on its device with the new level sent to stage 0. Times between tokens
// are read off the last stage's compute ends.
//
// Declarations only; the search library links the sim library (CMakeLists.txt), so the
// definitions live in .cpp files beside this one: the stage timer (stage_timer.hpp/.cpp), TBT
// statistics (tbt_stats.cpp), the timeline builder (timed_plan.cpp), the analytic step times
// behind E(T) (analytic_step_times.cpp) and the memory checks (specpipe_memory.cpp).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "search/scenarios/specpipe/pipeline_plan.hpp"
#include "search/scenarios/specpipe/stage_timer.hpp"
#include "sim/system/memory_fit.hpp"
#include "sim/system/timeline.hpp"

namespace search::specpipe {

struct TbtStats {
  double mean_s = 0, p50_s = 0, p90_s = 0, p99_s = 0;
  double tokens_per_s = 0;
  long long samples = 0;
};

struct TimedPlan {
  sim::TaskGraph graph;
  sim::TimelineRun run;
  std::vector<double> emit_s;          // per emission event: the last stage's compute end
  std::vector<int> emit_tokens;        // tokens per emission event
  TbtStats tbt;                        // per request (several requests: pooled over them)
  double tokens_per_s_total = 0;       // all requests' tokens per second between first and last emission
  std::vector<double> stage_utilisation;  // compute busy / window, per stage
  double window_s = 0;                 // first to last emission
  double mean_step_s = 0;              // window / steps in the window
  double link_bytes_per_step = 0;      // all lanes, mean over the run's steps
  double max_hop_bytes = 0;            // largest single stage-to-stage transfer
  double draft_utilisation = 0;
};

// Nearest-rank percentile of sorted samples.
double percentile(const std::vector<double>& sorted, double q);

// Mean, percentiles and rate of TBT samples (seconds).
TbtStats stats_of(std::vector<double> samples);

// TBT samples: per emission event after the first, the gap to the previous event spread evenly
// over the tokens it emits (one sample per token; a tree baseline emits several at once).
TbtStats tbt_stats(const std::vector<double>& emit_s, const std::vector<int>& emit_tokens);

// TBT samples of several requests: per request, the gap between consecutive emissions spread
// over the tokens it emitted at the later one; pooled over requests.
TbtStats request_tbt_stats(const std::vector<std::vector<std::pair<double, int>>>& per_request);

// The plan's task graph on the system timeline (see the top of this file), run, with its TBT
// statistics, utilisations and link traffic. InputError when the plan's stage count is not the
// system's, or when it drafts with an EAGLE head the setup lacks.
TimedPlan time_plan(const PipelinePlan& plan, const TimingSetup& setup, const StageTimer& timer);

// Paper 002's t_i(w) for eq. (1)-(2): stage i's compute over w tokens plus its step overhead as
// the timeline charges it (the emitted token's trip from the last stage, then the longer of the
// prune and the w-token hop to the next stage, which overlap).
std::vector<double> paper_step_times(const TimingSetup& setup, const StageTimer& timer, int w);

// The two step times of the mechanism form of E(T): T_hit, a step that hits (every stage but the
// last holds at most w tokens, the last the one verified token; then the emitted token's trip,
// and the prune overlapped with the hop), and T_miss, the refill after a miss (the token's trip
// back to stage 0, stage 0's prune, then one token through every stage and link).
struct MechanismTimes {
  double t_hit = 0, t_miss = 0;
};

MechanismTimes mechanism_times(const TimingSetup& setup, const StageTimer& timer, int w);

// Memory of every device for a SpecPipe run (w-token levels; the system's KV budget or the
// context); InputError "infeasible: ..." naming the first device that does not fit.
// With several requests the system's KV budget (paper 002 §4.5: 81,920 tokens "for all requests")
// is shared: it must hold every request's context and level, or the run is infeasible; without a
// budget each request reserves its own context.
// Through the timer's deployment (StageTimer::costs).
std::vector<sim::DeviceMemory> check_memory(const StageTimer& timer, int width, int requests = 1);

}  // namespace search::specpipe
