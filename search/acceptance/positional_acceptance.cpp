#include "search/acceptance/positional_acceptance.hpp"

#include <cmath>
#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/reference_data.hpp"
#include "search/acceptance/paper004_tables.hpp"

namespace search {
namespace {

// A per-depth acceptance of 1 would make deep trees free tokens; no measured draft is that good.
constexpr double kAlphaCap = 0.99;

double chain_tpc_of(double level, double decay, int length) {
  double tpc = 1, p = 1;
  for (int d = 1; d <= length; ++d) {
    p *= std::min(level * std::pow(decay, d - 1), kAlphaCap);
    tpc += p;
  }
  return tpc;
}

}  // namespace

AcceptanceProcess independent_process(double level, double decay, const std::string& source) {
  if (!(level > 0 && level <= 1) || !(decay > 0 && decay <= 10))
    throw models::InputError(
        fmt::format("positional acceptance: level must be in (0, 1] and decay in (0, 10], got {} and {}", level, decay));
  AcceptanceProcessParams p = AcceptanceProcess::independent(level, DraftConfidence::constant, decay).params();
  p.alpha_cap = kAlphaCap;
  return AcceptanceProcess(p, source);
}

PositionalAcceptance::PositionalAcceptance(double level, double decay, std::string source)
    : level_(level), decay_(decay), source_(std::move(source)), process_(independent_process(level, decay, source_)) {}

double PositionalAcceptance::alpha(int depth) const {
  if (depth < 1) throw models::InputError(fmt::format("positional acceptance: depth must be >= 1, got {}", depth));
  return process_.state_alpha(0, depth);
}

double PositionalAcceptance::rank_probability(int depth, int rank) const {
  if (rank < 0) throw models::InputError(fmt::format("positional acceptance: rank must be >= 0, got {}", rank));
  if (depth < 1) throw models::InputError(fmt::format("positional acceptance: depth must be >= 1, got {}", depth));
  return process_.rank_probability(0, depth, rank);
}

double PositionalAcceptance::path_probability(const RankPath& path) const {
  double p = 1;
  for (std::size_t i = 0; i < path.size(); ++i) p *= rank_probability(int(i) + 1, path[i]);
  return p;
}

double PositionalAcceptance::chain_tpc(int length) const { return process_.chain_tpc(length); }

double solve_level(double decay, const ChainTpcPoint& point) {
  if (point.length < 1 || !(point.tpc >= 1) || point.tpc >= chain_tpc_of(1.0, decay, point.length))
    throw models::InputError(fmt::format("positional acceptance: chain TPC {} at length {} is not reachable (expected in [1, {:.3f}))",
                                         point.tpc, point.length, chain_tpc_of(1.0, decay, point.length)));
  double lo = 0, hi = 1;
  for (int i = 0; i < 80; ++i) {
    const double mid = 0.5 * (lo + hi);
    (chain_tpc_of(mid, decay, point.length) < point.tpc ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double fit_decay(const std::vector<ChainTpcPoint>& points) {
  if (points.size() < 2) throw models::InputError("positional acceptance: fitting a decay needs at least two chain TPCs");
  double best = 0, best_err = INFINITY;
  for (int i = 0; i <= 500; ++i) {
    const double decay = 0.80 + 0.001 * i;
    double level;
    try {
      level = solve_level(decay, points[0]);
    } catch (const models::InputError&) {
      continue;
    }
    double err = 0;
    for (std::size_t j = 1; j < points.size(); ++j) {
      const double e = chain_tpc_of(level, decay, points[j].length) - points[j].tpc;
      err += e * e;
    }
    if (err < best_err) best_err = err, best = decay;
  }
  return best;
}

namespace {

// The figures of the model's own EAGLE draft; InputError naming the models the table has.
Paper004Table1::OwnEagle own_eagle_row(const Paper004Table1& t, const std::string& model) {
  std::vector<std::string> known;
  for (const auto& r : t.own_eagle) {
    if (r.model == model) return r;
    known.push_back(r.model);
  }
  throw models::InputError(fmt::format("positional acceptance: no paper 004 figures for model '{}' (known: {})",
                                       model, fmt::join(known, ", ")));
}

}  // namespace

std::vector<std::string> paper004_models(const std::string& config_dir) {
  std::vector<std::string> names;
  for (const auto& r : load_paper004_table1(config_dir).own_eagle) names.push_back(r.model);
  return names;
}

double paper004_table2_tpc(const std::string& config_dir, const std::string& model) {
  for (const auto& r : load_paper004_table2(config_dir))
    if (r.model == model) return r.bf16_tpc;
  throw models::InputError(fmt::format("{}: no row for model '{}'",
                                       models::reference_path("paper004_table2", config_dir), model));
}

PositionalAcceptance paper004_acceptance(const std::string& config_dir, const std::string& model) {
  const Paper004Table1 t = load_paper004_table1(config_dir);
  const Paper004Table1::OwnEagle row = own_eagle_row(t, model);
  // The decay: the model's own EAGLE-3 row of Table 1 when there is one, else the mean over the
  // rows (the Llama 4 models have none).
  double decay = 0;
  std::string from;
  const auto own = std::find_if(t.eagle3.begin(), t.eagle3.end(), [&](const auto& e) { return e.model == model; });
  if (own != t.eagle3.end()) {
    decay = fit_decay(own->chain);
    from = "EAGLE-3 " + own->label;
  } else {
    std::vector<std::string> labels;
    for (const auto& e : t.eagle3) {
      decay += fit_decay(e.chain);
      labels.push_back(e.label);
    }
    decay /= double(t.eagle3.size());
    from = fmt::format("mean of EAGLE-3 {}", fmt::join(labels, "/"));
  }
  const double level = solve_level(decay, {3, row.chain3_tpc});
  return PositionalAcceptance(level, decay,
                              fmt::format("paper 004 Table 1: decay from {} chains 3/5/7, level from own chain-3 TPC {}",
                                          from, row.chain3_tpc));
}

}  // namespace search
