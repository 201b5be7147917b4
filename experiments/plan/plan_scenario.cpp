// `specdse plan` (and `specdse scenario plan`, `specdse.plan` in Python): given a system (or one
// device) and a workload, every registered plan scheme (experiments/plan/plan_scheme.hpp) runs
// at its best parameters and placements, and the candidates come back ranked by time between
// tokens, each with its status, a one-line why, the acceptance it assumed and the command that
// reproduces it alone. Candidates that do not fit memory or do not apply are listed, not ranked.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>

#include "experiments/plan/plan_alpha_boundary.hpp"
#include "experiments/plan/plan_context_mix.hpp"
#include "experiments/plan/plan_first_token.hpp"
#include "experiments/plan/plan_memory_headroom.hpp"
#include "experiments/plan/plan_request_rate.hpp"
#include "experiments/plan/plan_scheme.hpp"
#include "experiments/plan/plan_workload.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "models/config_error.hpp"
#include "models/software_stack.hpp"
#include "search/scenarios/scenario.hpp"

namespace experiments {
namespace {

// Progress on stderr once a plan runs longer than this.
constexpr double kQuietSeconds = 1.0;

constexpr double kGib = double(1ull << 30);

// Tokens a request decodes when a request rate is given without them (a chat answer's length).
constexpr long long kDefaultOutputTokens = 256;

// The percentile of the context mix at which the TBT and TTFT targets are checked by default:
// an SLO is a promise to (nearly) every request, and a mix's mean hides its long prompts.
constexpr double kDefaultSloPercentile = 99;

// "p99", "p99.5": a percentile as SLOs name it.
std::string percentile_name(double p) { return fmt::format("p{:g}", p); }

std::vector<models::ModelSpec> resolve_drafts(const search::ScenarioContext& ctx, const models::ModelSpec& target,
                                              bool& given) {
  const auto& reg = *ctx.configs;
  std::vector<models::ModelSpec> out;
  const std::string& list = ctx.text("draft");
  given = !list.empty();
  if (given) {
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t end = std::min(list.find(',', start), list.size());
      const std::string name = list.substr(start, end - start);
      if (!name.empty()) {
        auto m = reg.model(name);
        if (m.vocab_size != target.vocab_size)
          throw models::InputError(fmt::format("plan: --draft {}: its vocabulary ({} tokens) is not the target {}'s ({})",
                                               name, m.vocab_size, target.name, target.vocab_size));
        out.push_back(std::move(m));
      }
      start = end + 1;
    }
    return out;
  }
  // Every smaller model that shares the target's vocabulary can draft for it.
  for (const auto& name : reg.names("models")) {
    auto m = reg.model(name);
    if (m.name != target.name && m.vocab_size == target.vocab_size && m.parameters() < target.parameters())
      out.push_back(std::move(m));
  }
  return out;
}

search::ScenarioResult run_plan(const search::ScenarioContext& ctx) {
  ctx.require(ctx.workload != nullptr, "--model");
  ctx.require(ctx.configs != nullptr, "the config registry");
  const std::string& system_name = ctx.text("system");
  if ((ctx.hw != nullptr) == !system_name.empty())
    throw models::InputError("plan: give exactly one of --hw (one device) and --system (a system config)");
  // A workload file gives what the flags give; a setting in both is an error, not a silent pick.
  std::optional<PlanWorkload> file;
  if (!ctx.text("workload").empty()) file = read_plan_workload(ctx.text("workload"));
  auto from_file = [&](bool in_file, bool on_command_line, const char* flag, const char* key) {
    if (in_file && on_command_line)
      throw models::InputError(fmt::format("plan: {} and {}'s `{}`: give one", flag, file->file, key));
    return in_file;
  };
  // The context mix: one length, or several with the share of tokens decoded at each.
  std::vector<long long> contexts = ctx.contexts.empty() ? std::vector<long long>{1024} : ctx.contexts;
  if (file && from_file(!file->contexts.empty(), !ctx.contexts.empty(), "--context", "context")) contexts = file->contexts;
  std::vector<double> weights(contexts.size(), 1.0);
  if (file && from_file(!file->context_weights.empty(), !ctx.text("context-weights").empty(), "--context-weights",
                        "context_weights")) {
    weights = file->context_weights;
  } else if (!ctx.text("context-weights").empty()) {
    weights = ctx.reals("context-weights");
    if (weights.size() != contexts.size())
      throw models::InputError(fmt::format("plan: --context-weights: one weight per context ({}), got {}",
                                           contexts.size(), weights.size()));
  }
  auto optional_real = [&](const char* name) {
    return ctx.text(name).empty() ? std::optional<double>() : std::optional<double>(ctx.real(name));
  };
  std::optional<double> tbt_limit_ms = optional_real("tbt-limit-ms"), ttft_limit_ms = optional_real("ttft-limit-ms"),
                        headroom_gib = optional_real("memory-headroom-gib");
  if (file && from_file(file->tbt_limit_ms.has_value(), tbt_limit_ms.has_value(), "--tbt-limit-ms", "targets.tbt_ms"))
    tbt_limit_ms = file->tbt_limit_ms;
  if (file && from_file(file->ttft_limit_ms.has_value(), ttft_limit_ms.has_value(), "--ttft-limit-ms", "targets.ttft_ms"))
    ttft_limit_ms = file->ttft_limit_ms;
  if (file && from_file(file->memory_headroom_gib.has_value(), headroom_gib.has_value(), "--memory-headroom-gib",
                        "targets.memory_headroom_gib"))
    headroom_gib = file->memory_headroom_gib;
  // The targets hold per request: at a percentile of the context mix, not on its mean.
  double slo_percentile = kDefaultSloPercentile;
  if (auto p = optional_real("slo-percentile")) slo_percentile = *p;
  if (file && from_file(file->slo_percentile.has_value(), ctx.was_given("slo-percentile"), "--slo-percentile",
                        "targets.percentile"))
    slo_percentile = *file->slo_percentile;
  // Serving at a request rate instead of a batch (plan_request_rate.hpp).
  std::optional<RequestRate> rate;
  if (auto r = optional_real("request-rate"); r || (file && file->request_rate_per_s)) {
    if (file) from_file(file->request_rate_per_s.has_value(), r.has_value(), "--request-rate", "request_rate_per_s");
    rate = RequestRate{r ? *r : *file->request_rate_per_s, int(ctx.integer("output-tokens"))};
    if (file && from_file(file->output_tokens.has_value(), ctx.was_given("output-tokens"),
                          "--output-tokens", "output_tokens"))
      rate->output_tokens = *file->output_tokens;
  } else if (ctx.was_given("output-tokens")) {
    throw models::InputError("plan: --output-tokens sizes the requests of --request-rate, which is not given");
  } else if (file && file->output_tokens) {
    throw models::InputError(fmt::format("plan: {}: output_tokens is read with request_rate_per_s, which is not given",
                                         file->file));
  }
  std::string rank_by = ctx.text("rank-by");
  if (file && from_file(file->rank_by.has_value(), ctx.was_given("rank-by"), "--rank-by", "rank_by")) rank_by = *file->rank_by;
  const auto started = std::chrono::steady_clock::now();
  PlanSetup s;
  s.configs = ctx.configs;
  s.target = ctx.workload->target;
  s.batch = ctx.workload->batch;
  if (file && from_file(file->batch.has_value(), ctx.was_given("batch"), "--batch", "batch")) s.batch = *file->batch;
  if (rate && (ctx.was_given("batch") || (file && file->batch)))
    throw models::InputError("plan: a request rate and a batch: give one (at a rate plan picks each candidate's batch)");
  s.algorithm = ctx.workload->algorithm ? ctx.workload->algorithm->name : "";
  s.context = contexts.front();
  s.engine = ctx.text("engine");
  s.task = ctx.task;
  if (file && from_file(file->task.has_value(), ctx.was_given("task"), "--task", "task"))
    s.task = *file->task;
  s.want_trace = ctx.want_trace;
  if (!ctx.text("alpha").empty()) s.alpha = ctx.real("alpha");
  s.acceptance = ctx.text("acceptance");
  if (file) {
    const bool cli_acceptance = s.alpha.has_value() || !s.acceptance.empty();
    if (from_file(file->alpha.has_value(), cli_acceptance, "--alpha/--acceptance", "alpha")) s.alpha = file->alpha;
    if (from_file(file->acceptance.has_value(), cli_acceptance, "--alpha/--acceptance", "acceptance"))
      s.acceptance = *file->acceptance;
    if (from_file(file->statistics.has_value(), cli_acceptance, "--alpha/--acceptance", "statistics")) {
      s.acceptance = band_for_statistics(*file->statistics, [&](std::size_t done, std::size_t total) {
        std::cerr << fmt::format("plan: fitting {} ({}/{} fits), {:.1f} s\n", *file->statistics, done, total,
                                 std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
      });
    }
  }
  if (s.alpha && !s.acceptance.empty())
    throw models::InputError("plan: --alpha and --acceptance: give one source of the draft models' acceptance");
  // A band is read once here, so a bad one is one error, not a status on every candidate.
  std::string band_note;
  if (!s.acceptance.empty()) {
    const search::ProcessBand band = search::resolve_process_band(s.acceptance, ctx.configs->dir(), "--acceptance");
    band_note = fmt::format("; acceptance from the process band {} ({} fits to {}), for every draft", band.name,
                            band.members.size(), band.fitted_to);
  }
  std::string stack_note;
  if (ctx.hw) {
    models::HardwareSpec hw = *ctx.hw;
    // "auto": the kind's default (models::DeviceKind::default_stack: what the papers' own GPU and
    // CPU deployments run, vLLM with CUDA graphs and llama.cpp; none for an FPGA).
    const std::string stack = ctx.text("stack") == "auto" ? hw.default_stack() : ctx.text("stack");
    if (!stack.empty()) hw.stack = models::load_software_stack(ctx.configs->path("stacks", stack));
    stack_note = fmt::format("; {} runs stack {}", hw.name, stack.empty() ? "none (kernels only)" : stack);
    s.hw_name = hw.name;
    s.system = models::single_device_system(hw);
    s.single_hw = true;
  } else {
    if (ctx.text("stack") != "auto")
      throw models::InputError("plan: --stack applies to --hw; a system's devices name their own stacks");
    s.system = ctx.system_spec();
  }
  s.system.validate_placement(s.target);
  s.drafts = resolve_drafts(ctx, s.target, s.drafts_given);

  const auto schemes = plan_schemes();
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
  double plain_tbt = 0;
  for (const auto& c : all)
    if (c.from_scheme == "plain" && c.scheme == "plain" && c.ok() && plain_tbt == 0) plain_tbt = c.tbt_s;
  // The workload's targets: a candidate that misses one is listed with the reason, not ranked.
  // The TBT and TTFT targets are checked at the percentile over the mix's contexts (each by its
  // share), so a mix of short and long prompts is held to its long ones (plan_context_mix.hpp).
  const bool mix = contexts.size() > 1;
  auto at_percentile = [&](const PlanCandidate& c, double PlanCandidate::ContextTimes::*member, long long& context) {
    return mix_percentile(c.per_context, member, slo_percentile, context);
  };
  auto where = [&](long long context) {
    return mix ? fmt::format(" at {} (context {})", percentile_name(slo_percentile), context) : std::string();
  };
  for (auto& c : all) {
    if (!c.ok()) continue;
    long long tbt_context = 0, ttft_context = 0;
    const double tbt_s = c.per_context.empty() ? c.tbt_s : at_percentile(c, &PlanCandidate::ContextTimes::tbt_s, tbt_context);
    const double ttft_s =
        c.per_context.empty() ? c.ttft_s : at_percentile(c, &PlanCandidate::ContextTimes::ttft_s, ttft_context);
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
    else if (headroom_gib && c.system_placement && c.memory_checked && c.min_free_bytes < *headroom_gib * kGib)
      c.status = fmt::format("misses the memory headroom: {:.3g} GiB free on {} < {:.3g} GiB", c.min_free_bytes / kGib,
                             c.fullest_device, *headroom_gib);
  }
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

  search::ScenarioResult r;
  r.columns = {"rank", "scheme", "placement", "parameters", "status", "batch", "tbt_ms", "tbt_low_ms", "tbt_high_ms",
               "tbt_worst_ms", "tokens_per_s", "tokens_per_s_total", "requests_per_s", "speedup", "ttft_ms",
               "ttft_worst_ms", "free_gib", "acceptance", "why", "reproduce"};
  // What a 120-character text table keeps (--wide or CSV/JSON for the rest).
  r.narrow_columns = {"rank", "scheme", "placement", "parameters", "status", "tbt_ms", "speedup", "ttft_ms"};
  // The slowest context's times (the mean's over a mix: tbt_ms, ttft_ms).
  auto worst = [](const PlanCandidate& c, double PlanCandidate::ContextTimes::*member) {
    double w = 0;
    for (const auto& t : c.per_context) w = std::max(w, t.*member);
    return w;
  };
  std::int64_t rank = 0;
  for (const auto& c : all) {
    std::vector<search::ScenarioCell> row;
    row.emplace_back(c.ok() ? search::ScenarioCell(++rank) : search::ScenarioCell(std::string()));
    for (const auto* t : {&c.scheme, &c.placement, &c.parameters, &c.status}) row.emplace_back(*t);
    // Timed candidates show their numbers, ranked or not (one that misses a target says by how much).
    row.emplace_back(c.batch > 0 ? search::ScenarioCell(std::int64_t(c.batch)) : search::ScenarioCell(std::string()));
    if (c.tbt_s > 0) {
      for (double v : {c.tbt_s * 1e3, c.tbt_low_s * 1e3, c.tbt_high_s * 1e3}) row.emplace_back(v);
      row.emplace_back(c.per_context.empty() ? search::ScenarioCell(std::string())
                                             : search::ScenarioCell(worst(c, &PlanCandidate::ContextTimes::tbt_s) * 1e3));
      for (double v : {1 / c.tbt_s, c.batch / c.tbt_s}) row.emplace_back(v);
      // Requests a second it sustains (Little's law, plan_request_rate.hpp) at the rate's output length.
      row.emplace_back(rate && c.ttft_s > 0 ? search::ScenarioCell(sustained_rate(c, c.batch, rate->output_tokens))
                                            : search::ScenarioCell(std::string()));
      row.emplace_back(plain_tbt > 0 ? search::ScenarioCell(plain_tbt / c.tbt_s) : search::ScenarioCell(std::string()));
      row.emplace_back(c.ttft_s > 0 ? search::ScenarioCell(c.ttft_s * 1e3) : search::ScenarioCell(std::string()));
      row.emplace_back(c.ttft_s > 0 && !c.per_context.empty()
                           ? search::ScenarioCell(worst(c, &PlanCandidate::ContextTimes::ttft_s) * 1e3)
                           : search::ScenarioCell(std::string()));
      row.emplace_back(c.memory_checked ? search::ScenarioCell(c.min_free_bytes / kGib)
                                        : search::ScenarioCell(std::string()));
    } else {
      for (int k = 0; k < 11; ++k) row.emplace_back(std::string());
    }
    for (const auto* t : {&c.acceptance, &c.why, &c.reproduce}) row.emplace_back(*t);
    r.rows.push_back(std::move(row));
  }

  // The boundary reruns schemes at one context; a mix would rerun every context per step.
  const std::string boundary = s.alpha && contexts.size() == 1 && !rate ? alpha_boundary(s, all) : "";
  // The footer: short lines (the verdict, the workload, the inputs, the caveats), and the same
  // facts as fields for JSON, CSV and Python (ScenarioResult::meta).
  std::string winner, runner_up, overlap_word;
  std::vector<std::string> footer_lines, caveats, borrowed, search_limits;
  auto meta = [&r](const char* key, search::ScenarioResult::MetaValue v) { r.meta.emplace_back(key, std::move(v)); };
  if (rank == 0) {
    // Timed but all missing a target is another answer than nothing timed.
    // The closest: the least excess over the target it misses (its time over the limit).
    const PlanCandidate* closest = nullptr;
    for (const auto& c : all)
      if (c.target_excess > 0 && (!closest || c.target_excess < closest->target_excess))
        closest = &c;
    footer_lines.push_back(closest ? fmt::format("no candidate meets the targets (see status); closest: {} ({}): {}",
                                                 closest->scheme, closest->placement, closest->status)
                                   : "no scheme could be timed (see status)");
  } else {
    const auto& best = all[0];
    winner = fmt::format("{} ({}{})", best.scheme, best.placement, best.parameters.empty() ? "" : ", " + best.parameters);
    std::string verdict =
        fmt::format("best{}: {} at {:.3g} ms per token{}{}{}", rank_by == "tbt" ? "" : " by " + rank_by, winner,
                    best.tbt_s * 1e3,
                    rank_by == "throughput" ? fmt::format(", {:.4g} tokens/s", best.batch / best.tbt_s) : "",
                    rank_by == "ttft" ? fmt::format(", TTFT {:.4g} ms", best.ttft_s * 1e3) : "",
                    plain_tbt > 0 && best.scheme != "plain" ? fmt::format(", {:.2f}x plain decoding's TBT", plain_tbt / best.tbt_s)
                                                            : "");
    if (rank > 1) {
      const auto& second = all[1];
      runner_up = fmt::format("{} ({})", second.scheme, second.placement);
      // Bands are over the time between tokens: they settle a TBT ranking only.
      const bool overlap = rank_by == "tbt" && best.tbt_high_s >= second.tbt_low_s;
      overlap_word = rank_by != "tbt" ? "" : overlap ? "yes" : "no";
      verdict += fmt::format("; runner-up {} at {}{}", second.scheme,
                             rank_by == "throughput" ? fmt::format("{:.4g} tokens/s", second.batch / second.tbt_s)
                             : rank_by == "ttft"     ? fmt::format("TTFT {:.4g} ms", second.ttft_s * 1e3)
                                                     : fmt::format("{:.3g} ms", second.tbt_s * 1e3),
                             overlap ? " (their acceptance bands overlap: the data do not settle which is faster)" : "");
    }
    footer_lines.push_back(verdict);
  }
  if (!boundary.empty()) footer_lines.push_back(boundary);
  // The schemes' own comparisons (SpecPipe's level-hit boundary), for one context.
  if (contexts.size() == 1)
    for (const auto& c : all)
      if (!c.footer_note.empty()) footer_lines.push_back(c.footer_note);
  const std::string context_words =
      contexts.size() == 1 ? fmt::format("context {}", contexts.front())
                           : fmt::format("contexts {} weighted {}", fmt::join(contexts, ", "), fmt::join(weights, ":"));
  const std::string load_words =
      rate ? fmt::format("{:.4g} requests/s of {} tokens each (each candidate at the smallest batch that sustains it)",
                         rate->per_s, rate->output_tokens)
           : fmt::format("batch {}", s.batch);
  const std::string acceptance_words =
      s.alpha ? fmt::format("draft models at alpha {} per token", *s.alpha)
      : !band_note.empty() ? band_note.substr(2)
      : s.batch == 1 && !rate ? "draft-model chain SD needs --alpha or --acceptance"
                              : "no draft-model acceptance given (--alpha or --acceptance)";
  footer_lines.push_back(fmt::format("{} on {}, {}, {}; engine {}{}", s.target.name, s.system.name, context_words,
                                     load_words, s.engine, stack_note));
  footer_lines.push_back(fmt::format("{}; {} candidates from {} schemes", acceptance_words, all.size(), schemes.size()));
  if ((tbt_limit_ms || ttft_limit_ms) && mix)
    footer_lines.push_back(fmt::format("TBT and TTFT targets checked per request at {} of the context mix (each context "
                                       "by its weight); tbt_ms and ttft_ms are the mix's means, *_worst_ms its slowest",
                                       percentile_name(slo_percentile)));
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& c = all[i];
    if (!c.acceptance_borrowed.empty())
      borrowed.push_back(fmt::format("{} ({}): acceptance {}", c.scheme, c.placement, c.acceptance_borrowed));
    if (!c.search_limit.empty()) search_limits.push_back(fmt::format("{} ({}): {}", c.scheme, c.placement, c.search_limit));
  }
  for (const auto& b : borrowed) caveats.push_back("borrowed: " + b);
  for (const auto& l : search_limits) caveats.push_back("at the search limit: " + l);
  for (const auto& cav : caveats) footer_lines.push_back("caveat: " + cav);
  // The winner's timeline (every scheme keeps its candidates' own when a trace is wanted; the
  // best-ranked one that has one otherwise); the footer names whose it is.
  std::string trace_of;
  for (std::size_t i = 0; i < std::size_t(rank) && s.want_trace; ++i)
    if (all[i].write_trace) {
      r.write_trace = all[i].write_trace;
      trace_of = fmt::format("{} ({})", all[i].scheme, all[i].placement);
      footer_lines.push_back("trace: " + trace_of);
      break;
    }
  r.footer = fmt::format("{}", fmt::join(footer_lines, "\n"));
  meta("winner", winner);
  meta("runner_up", runner_up);
  // The verdict's numbers and yes/no as such (JSON numbers and booleans; null / absent: none).
  meta("winner_tbt_ms", rank > 0 ? all[0].tbt_s * 1e3 : std::numeric_limits<double>::quiet_NaN());
  meta("runner_up_tbt_ms", rank > 1 ? all[1].tbt_s * 1e3 : std::numeric_limits<double>::quiet_NaN());
  if (!overlap_word.empty()) meta("bands_overlap", overlap_word == "yes");
  meta("ranked_by", rank_by);
  meta("model", s.target.name);
  meta("system", s.system.name);
  meta("contexts", context_words);
  meta("load", load_words);
  meta("engine", s.engine);
  meta("acceptance", acceptance_words);
  if (tbt_limit_ms || ttft_limit_ms) meta("slo_percentile", percentile_name(slo_percentile));
  meta("borrowed", borrowed);
  meta("search_limits", search_limits);
  meta("caveats", caveats);
  if (!boundary.empty()) meta("alpha_boundary", boundary);
  if (!trace_of.empty()) meta("trace", trace_of);
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
                                   "the smallest batch (1, 2, 4, ... 256) that sustains it"),
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
     "plan_ranking"});

}  // namespace
}  // namespace experiments
