#include "search/window/chain_sd.hpp"

#include <fmt/format.h>

#include <cmath>

#include "models/config_error.hpp"

namespace search {

void require_accuracy(const std::string& what, double accuracy) {
  if (!(accuracy > 0.0 && accuracy < 1.0))
    throw models::InputError(
        fmt::format("{}: expected a token accuracy in (0, 1), got {}", what, accuracy));
}

void require_gamma_max(const std::string& what, int gamma_max) {
  if (gamma_max < 1 || gamma_max > kMaxWindowLimit)
    throw models::InputError(
        fmt::format("{}: expected a window limit in [1, {}], got {}", what, kMaxWindowLimit, gamma_max));
}

double chain_expected_tokens(double accuracy, int gamma) {
  if (!(accuracy >= 0.0 && accuracy <= 1.0) || gamma < 0)
    throw models::InputError(
        fmt::format("chain_expected_tokens: expected accuracy in [0, 1] and gamma >= 0, got {} and {}",
                    accuracy, gamma));
  // Summing the geometric series term by term is exact at a = 1 and avoids 0/0 near it.
  double sum = 0, term = 1;
  for (int i = 0; i <= gamma; ++i) {
    sum += term;
    term *= accuracy;
  }
  return sum;
}

namespace {
constexpr double kMinConstantVerifyS = 1e-9, kMaxConstantVerifyS = 86400.0, kMaxCostRatio = 1e6;
}  // namespace

ChainLatency ChainLatency::constant(double cost_ratio, double t_verify_s, int gamma_max) {
  require_gamma_max("--gamma-max", gamma_max);
  // A draft a million times slower than the target per token is already far past any use.
  if (!(cost_ratio >= 0.0 && cost_ratio <= kMaxCostRatio))
    throw models::InputError(fmt::format("--cost-ratio: expected a number in [0, {:g}], got {}", kMaxCostRatio, cost_ratio));
  // A nanosecond to a day: outside it the tokens/s (1 / T_v) of a table would not be a finite
  // number, or the value is a unit slip.
  if (!(t_verify_s >= kMinConstantVerifyS && t_verify_s <= kMaxConstantVerifyS))
    throw models::InputError(fmt::format("--t-verify-s: expected seconds in [{:g}, {:g}], got {}", kMinConstantVerifyS,
                                         kMaxConstantVerifyS, t_verify_s));
  ChainLatency l;
  for (int g = 0; g <= gamma_max; ++g) {
    l.draft_s_.push_back(g * cost_ratio * t_verify_s);
    l.verify_s_.push_back(t_verify_s);
  }
  return l;
}

ChainLatency ChainLatency::from_engine(const models::LatencyEngine& engine, const models::Workload& w,
                                       long long context, int gamma_max, const DraftPlacement& placement) {
  require_gamma_max("--gamma-max", gamma_max);
  if (!w.algorithm)
    throw models::InputError("--draft: expected a chain draft (algorithm or draft model), got none");
  if (w.algorithm->tree_kind != models::TreeKind::chain)
    throw models::InputError(fmt::format(
        "--draft: expected a chain algorithm (e.g. longspec-chain, eagle3-chain or a draft model "
        "name), got tree algorithm '{}'", w.algorithm->name));
  if (context < 0)
    throw models::InputError(fmt::format("--context: expected tokens >= 0, got {}", context));
  ChainLatency l;
  for (int g = 0; g <= gamma_max; ++g) {
    l.verify_s_.push_back(models::t_verify(engine, w, g + 1, context));
    l.draft_s_.push_back(g == 0 ? 0.0 : placement.t_draft(engine, w, g + 1, context));
  }
  return l;
}

double ChainLatency::cost_ratio() const {
  return gamma_max() >= 1 ? draft_s(1) / verify_s(0) : 0.0;
}

double chain_tokens_per_s(double accuracy, int gamma, const ChainLatency& latency) {
  return chain_expected_tokens(accuracy, gamma) / latency.iteration_s(gamma);
}

GammaChoice optimal_gamma(double accuracy, const ChainLatency& latency, int gamma_min) {
  return optimal_gamma([accuracy](int g) { return chain_expected_tokens(accuracy, g); }, latency, gamma_min);
}

GammaChoice optimal_gamma(const ExpectedTokens& expected_tokens, const ChainLatency& latency, int gamma_min) {
  GammaChoice best;
  best.gamma = -1;
  for (int g = std::max(gamma_min, 0); g <= latency.gamma_max(); ++g) {
    const double e = expected_tokens(g);
    const double tps = e / latency.iteration_s(g);
    if (best.gamma < 0 || tps > best.tokens_per_s) {
      best.gamma = g;
      best.tokens_per_s = tps;
      best.expected_tokens = e;
    }
  }
  return best;
}

std::vector<GammaStarCell> gamma_star_map(const std::vector<double>& accuracies,
                                          const std::vector<double>& cost_ratios, int gamma_max,
                                          int gamma_min) {
  std::vector<GammaStarCell> cells;
  for (double c : cost_ratios) {
    const auto latency = ChainLatency::constant(c, 1.0, gamma_max);
    for (double a : accuracies) {
      require_accuracy("--alpha", a);
      GammaStarCell cell;
      cell.accuracy = a;
      cell.cost_ratio = c;
      cell.best = optimal_gamma(a, latency, gamma_min);
      cell.speedup = cell.best.tokens_per_s / chain_tokens_per_s(a, 0, latency);
      cells.push_back(cell);
    }
  }
  return cells;
}

}  // namespace search
