#include "search/plan/plan_request.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <set>

#include "models/closest_name.hpp"
#include "models/config_error.hpp"
#include "models/draft_compatibility.hpp"
#include "models/software_stack.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "search/plan/plan_workload.hpp"

namespace search {
namespace {

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
      if (name.empty())
        throw models::InputError(fmt::format("plan: --draft '{}': expected comma-separated model names, got an empty one",
                                             list));
      auto m = reg.model(name);
      models::require_can_draft(m, target, "plan: --draft");
      for (const auto& seen : out)
        if (seen.name == m.name && seen.weight_format == m.weight_format)
          throw models::InputError(fmt::format("plan: --draft {}: named twice", name));
      out.push_back(std::move(m));
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

}  // namespace

std::string percentile_name(double p) { return fmt::format("p{:g}", p); }

PlanRequest read_plan_request(const search::ScenarioContext& ctx, std::chrono::steady_clock::time_point started) {
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
  if (contexts.size() > kMaxMixContexts)
    throw models::InputError(fmt::format("plan: --context: at most {} contexts in a mix (each reruns every scheme), "
                                         "got {}",
                                         kMaxMixContexts, contexts.size()));
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
  {
    // The task picks measured AAT rows: one no row names would silently leave every scheme that
    // reads them without data.
    const auto data = AcceptanceData::load(ctx.configs->dir() + "/acceptance/aat_measurements.csv");
    std::set<std::string> tasks;
    for (const auto& row : data.rows()) tasks.insert(row.task);
    if (!tasks.count(s.task)) {
      const std::vector<std::string> known(tasks.begin(), tasks.end());
      throw models::InputError(fmt::format("plan: task '{}'{}: no measured AAT in {} names it (tasks: {})", s.task,
                                           models::did_you_mean(s.task, known), data.path(), fmt::join(known, ", ")));
    }
  }
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
    if (!hw.host.source_file.empty())
      stack_note += fmt::format(" on host {} (x{:g} its host figures)", hw.host.name, hw.host.dispatch_time_scale);
    s.hw_name = hw.name;
    s.system = models::single_device_system(hw);
    s.single_hw = true;
  } else {
    if (ctx.was_given("stack"))
      throw models::InputError("plan: --stack applies to --hw; a system's devices name their own stacks");
    s.system = ctx.system_spec();
  }
  s.system.validate_placement(s.target);
  s.drafts = resolve_drafts(ctx, s.target, s.drafts_given);

  PlanRequest q;
  q.setup = std::move(s);
  q.contexts = std::move(contexts);
  q.weights = std::move(weights);
  q.tbt_limit_ms = tbt_limit_ms;
  q.ttft_limit_ms = ttft_limit_ms;
  q.headroom_gib = headroom_gib;
  q.slo_percentile = slo_percentile;
  q.rate = rate;
  if (q.rate) {
    // The serving check's prompts: the mix's mean context, by its weights (one context: itself).
    double mean = 0, total = 0;
    for (std::size_t k = 0; k < q.contexts.size(); ++k) mean += double(q.contexts[k]) * q.weights[k], total += q.weights[k];
    q.rate->prompt_tokens = std::max(1LL, (long long)std::llround(mean / total));
  }
  q.rank_by = rank_by;
  q.band_note = band_note;
  q.stack_note = stack_note;
  return q;
}

}  // namespace search
