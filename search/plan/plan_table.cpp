#include "search/plan/plan_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "search/plan/plan_alpha_boundary.hpp"
#include "search/plan/plan_request_rate.hpp"

namespace search {

search::ScenarioResult plan_result(const PlanRequest& q, const std::vector<PlanCandidate>& all, double plain_tbt,
                                   std::size_t schemes) {
  const PlanSetup& s = q.setup;
  const auto& contexts = q.contexts;
  const auto& weights = q.weights;
  const auto& rate = q.rate;
  const auto& rank_by = q.rank_by;
  const auto& band_note = q.band_note;
  const auto& stack_note = q.stack_note;
  const bool mix = q.mix();
  const auto& tbt_limit_ms = q.tbt_limit_ms;
  const auto& ttft_limit_ms = q.ttft_limit_ms;
  const double slo_percentile = q.slo_percentile;
  search::ScenarioResult r;
  r.columns = {"rank", "scheme", "placement", "parameters", "status", "batch", "tbt_ms", "tbt_low_ms", "tbt_high_ms",
               "tbt_worst_ms", "tokens_per_s", "tokens_per_s_total", "requests_per_s", "speedup", "ttft_ms",
               "ttft_worst_ms", "free_gib", "acceptance", "why", "reproduce"};
  // With a request rate, the serving check's percentiles (plan_request_rate.hpp).
  if (rate)
    r.columns.insert(std::find(r.columns.begin(), r.columns.end(), "acceptance"),
                     {"served_tbt_p50_ms", "served_tbt_p99_ms", "served_ttft_p99_ms", "served_mean_batch"});
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
    if (rate) {
      if (c.served)
        for (double v : {c.served->tbt_p50_s * 1e3, c.served->tbt_p99_s * 1e3, c.served->ttft_p99_s * 1e3,
                         c.served->mean_batch})
          row.emplace_back(v);
      else
        for (int k = 0; k < 4; ++k) row.emplace_back(std::string());
    }
    for (const auto* t : {&c.acceptance, &c.why, &c.reproduce}) row.emplace_back(*t);
    r.rows.push_back(std::move(row));
  }

  // The boundary reruns schemes at one context and a fixed batch; a mix would rerun every
  // context per step. With --alpha the field is always there: the boundary or why there is none.
  std::string boundary;
  if (s.alpha) {
    if (contexts.size() != 1)
      boundary = "alpha boundary not computed for a mix of contexts (it reruns the schemes at one; give one --context)";
    else if (rate)
      boundary = "alpha boundary not computed under a request rate (it reruns the schemes at a fixed batch)";
    else
      boundary = alpha_boundary(s, all);
  }
  // The footer: short lines (the verdict, the workload, the inputs, the caveats), and the same
  // facts as fields for JSON, CSV and Python (ScenarioResult::meta).
  std::string winner, runner_up, overlap_word;
  std::vector<std::string> footer_lines, caveats, borrowed, search_limits;
  auto meta = [&r](const char* key, search::ScenarioResult::MetaValue v) { r.meta.emplace_back(key, std::move(v)); };
  if (rank == 0) {
    // Timed but all missing a target is another answer than nothing timed.
    // The closest: the least excess over the target it misses (its time over the limit, or the
    // headroom asked over the memory left).
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
    if (rate && best.served)
      verdict += fmt::format(" (served at the rate: TBT p50 {:.3g} ms, p99 {:.3g} ms, TTFT p99 {:.3g} ms, mean batch {:.3g})",
                             best.served->tbt_p50_s * 1e3, best.served->tbt_p99_s * 1e3, best.served->ttft_p99_s * 1e3,
                             best.served->mean_batch);
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
      rate ? (served_requests(*rate) > 0
                  ? fmt::format("{:.4g} requests/s of {} tokens each (each candidate at the batch a serving simulation "
                                "of {} Poisson arrivals of {}-token prompts on its times at every batch ran, its mean "
                                "decode batch to the nearest sequence, up to a timed one: served_* columns; requests_per_s: Little's "
                                "law's bound at that batch)",
                                rate->per_s, rate->output_tokens, served_requests(*rate), rate->prompt_tokens)
                  : fmt::format("{:.4g} requests/s of {} tokens each (each candidate at the smallest batch that "
                                "sustains it by Little's law, not simulated: {} requests of {} tokens would be over the "
                                "serving simulation's {} token steps)",
                                rate->per_s, rate->output_tokens, kMinServedRequests, rate->output_tokens,
                                kServedTokens))
           : fmt::format("batch {}", s.batch);
  const std::string acceptance_words =
      s.alpha ? fmt::format("draft models at alpha {} per token", *s.alpha)
      : !band_note.empty() ? band_note.substr(2)
      : s.batch == 1 && !rate ? "draft-model chain SD needs --alpha or --acceptance"
                              : "no draft-model acceptance given (--alpha or --acceptance)";
  footer_lines.push_back(fmt::format("{} on {}, {}, {}; engine {}{}", s.target.name, s.system.name, context_words,
                                     load_words, s.engine, stack_note));
  footer_lines.push_back(fmt::format("{}; {} candidates from {} schemes", acceptance_words, all.size(), schemes));
  // The targets as asked (flags or a workload file), so the table says what it was checked against.
  std::vector<std::string> targets;
  if (tbt_limit_ms) targets.push_back(fmt::format("TBT <= {} ms", *tbt_limit_ms));
  if (ttft_limit_ms) targets.push_back(fmt::format("TTFT <= {} ms", *ttft_limit_ms));
  if (tbt_limit_ms || ttft_limit_ms) targets.back() += " at " + percentile_name(slo_percentile);
  if (q.headroom_gib) targets.push_back(fmt::format("memory headroom >= {} GiB on every device", *q.headroom_gib));
  if (!targets.empty()) footer_lines.push_back(fmt::format("targets: {}", fmt::join(targets, "; ")));
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
  if (!targets.empty()) meta("targets", targets);
  meta("borrowed", borrowed);
  meta("search_limits", search_limits);
  meta("caveats", caveats);
  if (!boundary.empty()) meta("alpha_boundary", boundary);
  if (!trace_of.empty()) meta("trace", trace_of);
  return r;
}

}  // namespace search
