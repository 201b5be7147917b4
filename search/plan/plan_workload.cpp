#include "search/plan/plan_workload.hpp"
#include "models/input_file.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "models/version.hpp"
#include "sim/io/atomic_file.hpp"
#include "sim/io/temp_files.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "models/config_error.hpp"
#include "models/yaml_reader.hpp"

namespace search {
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
                "task", "alpha", "acceptance", "statistics", "targets"});
  PlanWorkload w;
  w.file = path;
  if (r.has("description")) r.string("description");
  if (r.has("context")) {
    const YAML::Node& n = r.node()["context"];
    if (n.IsSequence()) {
      if (n.size() == 0) r.fail("context", "a context or a list of contexts", "an empty list");
      w.contexts = r.positive_int_list("context");
    } else {
      w.contexts = {r.positive_int("context")};
    }
    if (w.contexts.size() > kMaxMixContexts)
      r.fail("context", fmt::format("at most {} contexts in a mix (each reruns every scheme)", kMaxMixContexts),
             fmt::format("{} contexts", w.contexts.size()));
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
  if (r.has("statistics")) {
    namespace fs = std::filesystem;
    fs::path stats = r.string("statistics");
    if (stats.is_relative()) stats = fs::path(path).parent_path() / stats;
    std::error_code ec;
    if (!fs::is_regular_file(stats, ec)) r.fail("statistics", "a statistics file", stats.string() + " (no such file)");
    w.statistics = stats.string();
  }
  if (int(w.alpha.has_value()) + int(w.acceptance.has_value()) + int(w.statistics.has_value()) > 1)
    r.fail("acceptance", "one source of the draft models' acceptance (alpha, acceptance or statistics)", "several");
  if (r.has("targets")) {
    const auto t = r.child("targets");
    t.allow_only({"tbt_ms", "ttft_ms", "memory_headroom_gib", "percentile"});
    if (t.has("tbt_ms")) w.tbt_limit_ms = number_in(t, "tbt_ms", kMinLimitMs, kMaxLimitMs, " ms");
    if (t.has("ttft_ms")) w.ttft_limit_ms = number_in(t, "ttft_ms", kMinLimitMs, kMaxLimitMs, " ms");
    if (t.has("memory_headroom_gib"))
      w.memory_headroom_gib = number_in(t, "memory_headroom_gib", 0, kMaxHeadroomGib, " GiB");
    if (t.has("percentile")) w.slo_percentile = number_in(t, "percentile", 1, 100, "");
  }
  return w;
}

std::string band_for_statistics(const std::string& statistics_path,
                                const std::function<void(std::size_t, std::size_t)>& progress) {
  namespace fs = std::filesystem;
  std::ifstream in = models::open_input_file(statistics_path, "statistics", true);
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // FNV-1a of the file's bytes and of the build's commit: the same statistics fitted by the same
  // code map to the same band file.
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char ch : content + "\n" + models::git_commit()) hash = (hash ^ ch) * 1099511628211ull;
  const fs::path band = fs::path(sim::temporary_folder("plan's cache of fitted acceptance bands")) /
                        fmt::format("specdse-band-{:016x}.yaml", hash);
  std::error_code ec;
  if (fs::is_regular_file(band, ec)) {
    // A cached band that does not read back (damaged, or written by an older build) is refitted
    // and replaced, not returned to fail again on every run.
    try {
      search::read_process_band(band.string());
      return band.string();
    } catch (const models::InputError&) {
    }
  }
  const auto file = search::read_statistics_file(statistics_path);
  const auto report = search::fit_statistics(file, progress);
  sim::write_file_atomic(band.string(), search::format_process_band(report.band, "Acceptance process band fitted by specdse "
                                                                            "plan to " + statistics_path + "."));
  return band.string();
}

}  // namespace search
