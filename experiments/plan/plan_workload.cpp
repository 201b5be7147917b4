#include "experiments/plan/plan_workload.hpp"

#include <fmt/format.h>

#include "experiments/cli/cli_common.hpp"
#include "models/config_error.hpp"
#include "models/yaml_reader.hpp"

namespace experiments {
namespace {

// Bounds as the command-line flags have them (plan's scenario parameters).
constexpr double kMinAlpha = 1e-6, kMaxAlpha = 1 - 1e-6;
constexpr double kMinLimitMs = 1e-6, kMaxLimitMs = 1e9;
constexpr double kMaxHeadroomGib = 1e6;
constexpr long long kMaxOutputTokens = 10'000'000;

double number_in(const models::YamlReader& r, const std::string& key, double lo, double hi, const std::string& unit) {
  const double v = r.number(key);
  if (v < lo || v > hi) r.fail(key, fmt::format("a number in [{}, {}]{}", lo, hi, unit), fmt::format("{}", v));
  return v;
}

}  // namespace

PlanWorkload read_plan_workload(const std::string& path) {
  const auto r = models::YamlReader::open(path);
  r.allow_only({"description", "context", "context_weights", "batch", "request_rate_per_s", "output_tokens", "rank_by",
                "task", "alpha", "acceptance", "targets"});
  PlanWorkload w;
  w.file = path;
  if (r.has("description")) r.string("description");
  if (r.has("context")) {
    const YAML::Node& n = r.node()["context"];
    if (n.IsSequence()) {
      w.contexts = r.positive_int_list("context");
    } else {
      w.contexts = {r.positive_int("context")};
    }
    for (std::size_t i = 0; i < w.contexts.size(); ++i)
      if (w.contexts[i] > kMaxContext)
        r.fail(fmt::format("context[{}]", i), fmt::format("at most {} tokens", kMaxContext),
               std::to_string(w.contexts[i]));
    for (std::size_t i = 1; i < w.contexts.size(); ++i)
      if (w.contexts[i] <= w.contexts[i - 1])
        r.fail("context", "contexts in ascending order, each once", fmt::format("{} after {}", w.contexts[i], w.contexts[i - 1]));
  }
  if (r.has("context_weights")) {
    const YAML::Node& n = r.node()["context_weights"];
    if (!n.IsSequence()) r.fail("context_weights", "a list of numbers, one per context", "not a list");
    for (std::size_t i = 0; i < n.size(); ++i) {
      double v = 0;
      if (!n[i].IsScalar() || !YAML::convert<double>::decode(n[i], v) || !(v > 0) || v > 1e12)
        r.fail(fmt::format("context_weights[{}]", i), "a number in (0, 1e12]", n[i].IsScalar() ? n[i].Scalar() : "not a number");
      w.context_weights.push_back(v);
    }
    if (w.contexts.empty()) r.fail("context_weights", "a `context:` list to weigh", "no context given");
    if (w.context_weights.size() != w.contexts.size())
      r.fail("context_weights", fmt::format("one weight per context ({})", w.contexts.size()),
             fmt::format("{} weights", w.context_weights.size()));
  }
  if (r.has("batch")) w.batch = r.int_in("batch", 1, kMaxBatch);
  if (r.has("request_rate_per_s")) w.request_rate_per_s = number_in(r, "request_rate_per_s", 1e-9, 1e9, " requests/s");
  if (w.batch && w.request_rate_per_s)
    r.fail("request_rate_per_s", "a batch or a request rate (plan picks the batch at a rate)", "both");
  if (r.has("output_tokens")) w.output_tokens = r.int_in("output_tokens", 1, kMaxOutputTokens);
  if (w.output_tokens && !w.request_rate_per_s)
    r.fail("output_tokens", "request_rate_per_s beside it (output_tokens sizes the requests)", "no request rate");
  if (r.has("rank_by")) w.rank_by = r.one_of("rank_by", {"tbt", "throughput", "ttft"});
  if (r.has("task")) w.task = r.string("task");
  if (r.has("alpha")) w.alpha = number_in(r, "alpha", kMinAlpha, kMaxAlpha, "");
  if (r.has("acceptance")) w.acceptance = r.string("acceptance");
  if (w.alpha && w.acceptance)
    r.fail("acceptance", "one source of the draft models' acceptance (alpha or acceptance)", "both");
  if (r.has("targets")) {
    const auto t = r.child("targets");
    t.allow_only({"tbt_ms", "ttft_ms", "memory_headroom_gib"});
    if (t.has("tbt_ms")) w.tbt_limit_ms = number_in(t, "tbt_ms", kMinLimitMs, kMaxLimitMs, " ms");
    if (t.has("ttft_ms")) w.ttft_limit_ms = number_in(t, "ttft_ms", kMinLimitMs, kMaxLimitMs, " ms");
    if (t.has("memory_headroom_gib"))
      w.memory_headroom_gib = number_in(t, "memory_headroom_gib", 0, kMaxHeadroomGib, " GiB");
  }
  return w;
}

}  // namespace experiments
