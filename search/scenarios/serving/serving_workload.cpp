#include "search/scenarios/serving/serving_workload.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "models/config_error.hpp"
#include "models/yaml_reader.hpp"

namespace search::serving {
namespace {

// Probabilities that sum to 1 within this (the derivation script rounds to 6 decimals).
constexpr double kSumTolerance = 1e-3;

std::vector<double> number_list(const models::YamlReader& r, const std::string& key, const YAML::Node& n) {
  if (!n.IsSequence() || n.size() == 0) r.fail(key, "a non-empty list of numbers", n.IsDefined() ? "another value" : "none");
  std::vector<double> out;
  for (const auto& v : n) {
    double x = 0;
    try {
      x = v.as<double>();
    } catch (const YAML::Exception&) {
      r.fail(key, "a list of numbers", "a list holding '" + (v.IsScalar() ? v.Scalar() : std::string("a list")) + "'");
    }
    if (!std::isfinite(x)) r.fail(key, "finite numbers", std::to_string(x));
    out.push_back(x);
  }
  return out;
}

std::vector<double> probabilities(const models::YamlReader& r, const std::string& key, const YAML::Node& n,
                                  std::size_t size) {
  auto p = number_list(r, key, n);
  double sum = 0;
  for (double x : p) {
    if (x < 0) r.fail(key, "probabilities >= 0", fmt::format("{}", x));
    sum += x;
  }
  if (p.size() != size) r.fail(key, fmt::format("{} probabilities", size), fmt::format("{}", p.size()));
  if (std::fabs(sum - 1) > kSumTolerance) r.fail(key, "probabilities summing to 1", fmt::format("a sum of {}", sum));
  for (double& x : p) x /= sum;
  return p;
}

YieldChain read_chain(const models::YamlReader& r) {
  r.allow_only({"positions", "mean_yield", "walk_lag1_correlation", "first", "marginal", "transitions", "match_probability",
                "measured_draft_tokens"});
  YieldChain c;
  const auto marginal = number_list(r, "marginal", r.node()["marginal"]);
  if (marginal.size() < 2 || marginal.size() > 64) r.fail("marginal", "2 to 64 yield buckets", std::to_string(marginal.size()));
  c.marginal = probabilities(r, "marginal", r.node()["marginal"], marginal.size());
  c.first = probabilities(r, "first", r.node()["first"], marginal.size());
  const YAML::Node rows = r.node()["transitions"];
  if (!rows.IsSequence() || rows.size() != marginal.size())
    r.fail("transitions", fmt::format("{} rows (one per yield)", marginal.size()), "another value");
  for (std::size_t i = 0; i < rows.size(); ++i)
    c.transitions.push_back(probabilities(r, fmt::format("transitions[{}]", i), rows[i], marginal.size()));
  // A step keeps at least its bonus token: a mean yield below 1 is no measured yield.
  c.mean_yield = r.number("mean_yield");
  if (!(c.mean_yield >= 1)) r.fail("mean_yield", "a mean yield of at least 1 token a step", fmt::format("{}", c.mean_yield));
  if (r.has("walk_lag1_correlation")) {
    const double rho = r.number("walk_lag1_correlation");
    if (!(rho >= -1 && rho <= 1)) r.fail("walk_lag1_correlation", "a correlation in [-1, 1]", fmt::format("{}", rho));
  }
  c.match_probability = r.has("match_probability") ? r.fraction("match_probability") : 1.0;
  if (r.has("measured_draft_tokens")) {
    c.measured_draft_tokens = r.int_in("measured_draft_tokens", 1, 63);
    // Such a step yields at most its drafts and the bonus: the last bucket is that, not "or more".
    if (std::size_t(c.measured_draft_tokens) + 1 != c.marginal.size())
      r.fail("marginal", fmt::format("{} yield buckets (1 to measured_draft_tokens + 1)", c.measured_draft_tokens + 1),
             std::to_string(c.marginal.size()));
  }
  return c;
}

}  // namespace

int draw_index(const std::vector<double>& p, double u) {
  double cumulative = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    cumulative += p[i];
    if (u < cumulative) return int(i);
  }
  return int(p.size()) - 1;  // rounding: the last bucket
}

long long sample_length(const std::vector<double>& quantiles, const std::vector<double>& lengths, double u) {
  std::size_t i = 1;
  while (i + 1 < quantiles.size() && quantiles[i] < u) ++i;
  const double q0 = quantiles[i - 1], q1 = quantiles[i];
  const double t = q1 > q0 ? (u - q0) / (q1 - q0) : 0;
  return std::max(1LL, (long long)std::llround(lengths[i - 1] + t * (lengths[i] - lengths[i - 1])));
}

ServingWorkload load_serving_workload(const std::string& name_or_path, const std::string& config_dir) {
  namespace fs = std::filesystem;
  std::string path = (fs::path(config_dir) / "serving" / (name_or_path + ".yaml")).string();
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    if (fs::path(name_or_path).extension() == ".yaml" && fs::exists(name_or_path, ec)) {
      path = name_or_path;
    } else {
      std::vector<std::string> names;
      for (const auto& e : fs::directory_iterator(fs::path(config_dir) / "serving", ec))
        if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
      std::sort(names.begin(), names.end());
      throw models::InputError(fmt::format("--workload: unknown serving workload '{}'; available: {} (or a YAML path; "
                                           "scripts/derive_serving_workload.py writes one)",
                                           name_or_path, fmt::join(names, ", ")));
    }
  }
  const auto r = models::YamlReader::open(path);
  r.allow_only({"name", "source", "target", "requests", "quantiles", "prompt_tokens", "output_tokens", "acceptance"});
  ServingWorkload w;
  w.file = path;
  w.name = r.string("name");
  w.source = r.string("source");
  w.target = r.string("target");
  w.requests = int(r.positive_int("requests"));
  w.quantiles = number_list(r, "quantiles", r.node()["quantiles"]);
  if (w.quantiles.size() < 2 || w.quantiles.front() != 0 || w.quantiles.back() != 1 ||
      !std::is_sorted(w.quantiles.begin(), w.quantiles.end()))
    r.fail("quantiles", "ascending levels from 0 to 1", "another list");
  for (const char* key : {"prompt_tokens", "output_tokens"}) {
    auto v = number_list(r, key, r.node()[key]);
    if (v.size() != w.quantiles.size()) r.fail(key, fmt::format("{} lengths (one per quantile)", w.quantiles.size()),
                                              std::to_string(v.size()));
    if (!std::is_sorted(v.begin(), v.end()) || v.front() < 1 || v.back() > 1e7)
      r.fail(key, "ascending lengths in [1, 1e7]", "another list");
    (std::string(key) == "prompt_tokens" ? w.prompt_tokens : w.output_tokens) = std::move(v);
  }
  // Acceptance is optional: a preset of lengths alone serves plain decoding.
  if (const auto acc = r.optional_child("acceptance")) {
    acc->allow_only({"eagle3", "ngram"});
    for (const char* method : {"eagle3", "ngram"})
      if (acc->has(method)) w.acceptance[method] = read_chain(acc->child(method));
  }
  return w;
}

}  // namespace search::serving
