#include "search/acceptance/positional_acceptance.hpp"

#include <cmath>
#include <algorithm>
#include <tuple>
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
  throw models::InputError(fmt::format("positional acceptance: no paper 004 figures for model '{}' (known: {}); give "
                                       "your EAGLE head's measured chains to `specdse eagle --chain-tpc LENGTH:TPC,...`",
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

namespace {

// The mean decay over paper 004 Table 1's EAGLE-3 rows, with the rows it came from.
std::pair<double, std::string> mean_eagle3_decay(const Paper004Table1& t) {
  double decay = 0;
  std::vector<std::string> labels;
  for (const auto& e : t.eagle3) {
    decay += fit_decay(e.chain);
    labels.push_back(e.label);
  }
  return {decay / double(t.eagle3.size()), fmt::format("mean of EAGLE-3 {}", fmt::join(labels, "/"))};
}

}  // namespace

std::vector<ChainTpcPoint> parse_chain_tpcs(const std::string& text, const std::string& option) {
  std::vector<ChainTpcPoint> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    const auto colon = item.find(':');
    ChainTpcPoint p;
    std::size_t used_length = 0, used_tpc = 0;
    try {
      if (colon == std::string::npos) throw std::invalid_argument(item);
      p.length = std::stoi(item.substr(0, colon), &used_length);
      p.tpc = std::stod(item.substr(colon + 1), &used_tpc);
    } catch (const std::exception&) {
      used_length = 0;
    }
    if (colon == std::string::npos || used_length != colon || used_tpc != item.size() - colon - 1 || p.length < 1 ||
        p.length > 64 || !std::isfinite(p.tpc))
      throw models::InputError(fmt::format("{}: expected LENGTH:TPC items (a chain of 1-64 draft tokens and its "
                                           "measured tokens per call), e.g. 3:2.8,5:3.3; got '{}'",
                                           option, item));
    for (const auto& q : out)
      if (q.length == p.length) throw models::InputError(fmt::format("{}: chain length {} given twice", option, p.length));
    out.push_back(p);
    start = end + 1;
  }
  if (out.empty()) throw models::InputError(fmt::format("{}: expected at least one LENGTH:TPC item", option));
  // A chain's tokens per call lie in [1, length + 1] and never fall as the chain grows (a longer
  // chain holds the shorter one's draft as its prefix).
  std::vector<ChainTpcPoint> sorted = out;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.length < b.length; });
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const auto& p = sorted[i];
    if (p.tpc < 1 || p.tpc > p.length + 1)
      throw models::InputError(fmt::format("{}: {}:{}: a chain of {} draft tokens yields 1 to {} tokens per call", option,
                                           p.length, p.tpc, p.length, p.length + 1));
    if (i > 0 && p.tpc < sorted[i - 1].tpc)
      throw models::InputError(fmt::format("{}: {}:{} below {}:{}: a longer chain never yields fewer tokens per call",
                                           option, p.length, p.tpc, sorted[i - 1].length, sorted[i - 1].tpc));
  }
  return out;
}

PositionalAcceptance user_chain_acceptance(std::vector<ChainTpcPoint> points, const std::string& config_dir) {
  if (points.empty()) throw models::InputError("positional acceptance: no chain TPC given");
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.length < b.length; });
  std::vector<std::string> given;
  for (const auto& p : points) given.push_back(fmt::format("{}:{}", p.length, p.tpc));
  double decay = 0;
  std::string from;
  if (points.size() >= 2) {
    decay = fit_decay(points);
    from = "fitted to them";
  } else {
    const auto mean = mean_eagle3_decay(load_paper004_table1(config_dir));
    decay = mean.first;
    from = "paper 004 Table 1's " + mean.second + " chains (one length given)";
  }
  const double level = solve_level(decay, points.front());
  return PositionalAcceptance(level, decay,
                              fmt::format("your EAGLE head's chain TPCs {} (--chain-tpc): level from chain {}, decay {}",
                                          fmt::join(given, ","), points.front().length, from));
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
    std::tie(decay, from) = mean_eagle3_decay(t);
  }
  const double level = solve_level(decay, {3, row.chain3_tpc});
  return PositionalAcceptance(level, decay,
                              fmt::format("paper 004 Table 1: decay from {} chains 3/5/7, level from own chain-3 TPC {}",
                                          from, row.chain3_tpc));
}

}  // namespace search
