// `specdse plan` (and `specdse scenario plan`, `specdse.plan` in Python): given a system (or one
// device) and a workload, every registered plan scheme (search/plan/plan_scheme.hpp) runs
// at its best parameters and placements, and the candidates come back ranked by time between
// tokens, each with its status, a one-line why, the acceptance it assumed and the command that
// reproduces it alone. Candidates that do not fit memory or do not apply are listed, not ranked.
// The phases, one file each: the request (plan_request.hpp), the schemes' candidates (here), the
// targets and the order (plan_ranking.hpp), the table and its footer (plan_table.hpp).
#include <fmt/format.h>

#include <chrono>
#include <future>
#include <iostream>

#include "search/plan/plan_context_mix.hpp"
#include "search/plan/plan_first_token.hpp"
#include "search/plan/plan_memory_headroom.hpp"
#include "search/plan/plan_ranking.hpp"
#include "search/plan/plan_request.hpp"
#include "search/plan/plan_scheme.hpp"
#include "search/plan/plan_table.hpp"
#include "search/scenarios/scenario.hpp"

namespace search {
namespace {

// Progress on stderr once a plan runs longer than this.
constexpr double kQuietSeconds = 1.0;

// Every registered scheme on the request (at each context of its mix; at a request rate, at the
// batches plan_for_rate tries), each timed candidate with its TTFT and memory headroom.
std::vector<PlanCandidate> evaluate_candidates(const PlanRequest& q, const std::vector<PlanSchemeInfo>& schemes,
                                               std::chrono::steady_clock::time_point started) {
  const PlanSetup& s = q.setup;
  const auto& contexts = q.contexts;
  const auto& weights = q.weights;
  const auto& rate = q.rate;
  // Every scheme at batch `batch` over the context mix, each timed candidate with its TTFT and
  // memory headroom.
  std::string progress_prefix;
  auto evaluate = [&](int batch) {
    std::vector<std::vector<PlanCandidate>> per_context;
    for (std::size_t k = 0; k < contexts.size(); ++k) {
      PlanSetup at = s;
      at.batch = batch;
      at.context = contexts[k];
      at.want_trace = s.want_trace && k == 0;  // the trace is the first context's
      std::vector<PlanCandidate> found_all;
      // At a request rate each arriving request prefills alone (continuous batching); a fixed
      // batch's requests arrive and prefill together.
      FirstTokenCosts first_token(at, rate ? 1 : batch);
      // The schemes are independent (each runs its own scenarios on its own costs): run them on
      // threads, and take their candidates in scheme order, so the table is the same whatever
      // finishes first. SystemC device simulations inside them still take turns (sim/sc_session).
      std::vector<std::future<std::vector<PlanCandidate>>> running;
      for (const auto& scheme : schemes)
        running.push_back(std::async(std::launch::async, [&scheme, &at] { return scheme.run(at); }));
      for (std::size_t i = 0; i < schemes.size(); ++i) {
        auto found = running[i].get();
        for (auto& c : found) {
          c.from_scheme = schemes[i].name;
          c.batch = batch;
          if (!c.ok() || !c.system_placement) continue;
          c.ttft_s = first_token.ttft_s(c);
          const MemoryHeadroom h = memory_headroom(at, c);
          c.memory_checked = h.checked;
          c.min_free_bytes = h.min_free_bytes;
          c.fullest_device = h.device;
          // The schemes check feasibility with the same accounting (sim/system/memory_fit.hpp);
          // this catches what a scheme's own check leaves out (e.g. a draft head's weights).
          if (c.memory_checked && c.min_free_bytes < 0)
            c.status = fmt::format("infeasible: {:.3g} GiB short on {} with the draft", -c.min_free_bytes / kGib,
                                   c.fullest_device);
        }
        for (auto& c : found) found_all.push_back(std::move(c));
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        if (elapsed > kQuietSeconds)
          std::cerr << fmt::format("plan: {}context {} ({}/{}), {}/{} schemes ({}), {:.1f} s\n", progress_prefix,
                                   contexts[k], k + 1, contexts.size(), i + 1, schemes.size(), schemes[i].name, elapsed);
      }
      per_context.push_back(std::move(found_all));
    }
    return mix_contexts(per_context, contexts, weights);
  };
  std::vector<PlanCandidate> all =
      rate ? plan_for_rate(*rate, evaluate, [&](int b) { progress_prefix = fmt::format("batch {}, ", b); })
           : evaluate(s.batch);
  return all;
}

search::ScenarioResult run_plan(const search::ScenarioContext& ctx) {
  const auto started = std::chrono::steady_clock::now();
  const PlanRequest q = read_plan_request(ctx, started);
  const auto schemes = plan_schemes();
  std::vector<PlanCandidate> all = evaluate_candidates(q, schemes, started);
  const double plain_tbt = plain_tbt_s(all);
  apply_targets(q, all);
  rank_candidates(q, all);
  search::ScenarioResult r = plan_result(q, all, plain_tbt, schemes.size());
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (elapsed > kQuietSeconds)
    std::cerr << fmt::format("plan: {} candidates from {} schemes in {:.1f} s\n", all.size(), schemes.size(), elapsed);
  return r;
}

const search::ScenarioRegistration plan_scenario_registration(
    {"plan",
     "Which speculative decoding to run on a system: every scheme at its best parameters and placement, ranked",
     {search::param::system("", "instead of --hw"),
      search::param::text("draft", "",
                          "draft models to consider (comma separated; default: every smaller model with the target's "
                          "vocabulary)"),
      search::param::optional_real("alpha", 1e-6, 1 - 1e-6, "",
                                   "per-token acceptance of the draft models (independent); without it the schemes "
                                   "that need one use their measured acceptance or are not applicable"),
      search::param::acceptance_band("", " (specdse fit --statistics F --out BAND) for chain SD, tree SD, SpecPipe and "
                                     "DuoDecoding, instead of --alpha and their defaults; each candidate's band is the "
                                     "low / high over its fits"),
      search::param::text("stack", "auto",
                          "software stack of a --hw device (configs/stacks); auto: vllm-cuda-graph on a GPU, llama-cpp "
                          "on a CPU, none on other kinds"),
      search::param::reals("context-weights", "", 1e-12, 1e12, "",
                           "share of the tokens decoded at each --context, in ascending context order (default: equal), for a "
                           "context mix"),
      search::param::optional_real("tbt-limit-ms", 1e-6, 1e9, "ms", "time-between-tokens limit; slower candidates are listed, not ranked"),
      search::param::optional_real("ttft-limit-ms", 1e-6, 1e9, "ms",
                                   "time-to-first-token limit (the prompt's prefill of target and draft); slower "
                                   "candidates are listed, not ranked"),
      search::param::optional_real("slo-percentile", 1, 100, "%",
                                   "percentile of the context mix at which --tbt-limit-ms and --ttft-limit-ms are "
                                   "checked (each context by its weight; default 99: the mix's long prompts count)"),
      search::param::optional_real("memory-headroom-gib", 0, 1e6, "GiB",
                                   "device memory every device must keep free; candidates that leave less are listed, "
                                   "not ranked"),
      search::param::optional_real("request-rate", 1e-9, 1e9, "requests/s",
                                   "serve requests arriving at this rate instead of a fixed --batch: each candidate at "
                                   "the batch (1, 2, 4, ... 256) a serving simulation at the rate runs it at, or "
                                   "missing the rate where its queue grows (served_* columns)"),
      search::param::integer("output-tokens", kDefaultOutputTokens, 1, 1e7, "tokens",
                             "tokens each request decodes (with --request-rate)"),
      search::param::choice("rank-by", "tbt", {"tbt", "throughput", "ttft"},
                            "what ranks the candidates: time between tokens, tokens/s of all sequences, or time to "
                            "first token"),
      search::param::text("workload", "",
                          "workload YAML (context or a context mix with weights, batch, task, alpha or acceptance, "
                          "targets: tbt_ms, ttft_ms, memory_headroom_gib) instead of those flags; see "
                          "experiments/workloads/"),
      search::param::choice("engine", "roofline", {"roofline", "sim", "sim-clocked"}, "latency engine for every device")},
     run_plan,
     "plan",
     {"hw", "model", "algorithm", "context", "batch", "task", "engine"},
     {"model"},
     "plan_ranking",
     true});  // prints its own progress

}  // namespace
}  // namespace search
