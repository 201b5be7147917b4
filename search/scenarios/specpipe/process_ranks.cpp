// RankModel::from_process: SpecPipe's and SpecInfer's ranks drawn from the acceptance process
// (the header comment of speculative_tree.hpp says how).
#include "search/scenarios/specpipe/process_ranks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/config_error.hpp"
#include "search/acceptance/chain_trace.hpp"

namespace search::specpipe {
namespace {

// A uniform in (0, 1) from 64 bits (never 0: p1 = u^(1/c) must stay positive).
double open_unit(std::uint64_t bits) { return (double(bits >> 11) + 0.5) * 0x1.0p-53; }

// Salts that keep a context's p1 draw and its informativeness draw apart.
constexpr std::uint64_t kTop1Salt = 0x5DEECE66DULL;
constexpr std::uint64_t kInformativeSalt = 0x2545F4914F6CDD1DULL;
// ... and the text's state sequence apart from both (any odd constants serve).
constexpr std::uint64_t kStateStreamSalt = 0x9A7E5D1CULL;

}  // namespace

double RankModel::ProcessRanks::top1(std::uint64_t key, int state) const {
  const double a = alpha[std::size_t(state)];
  if (!calibrated || a >= 1) return a;
  // Beta(c, 1), c = a / (1 - a): P(p1 <= x) = x^c, so p1 = u^(1 / c).
  return std::pow(open_unit(mix64(key ^ kTop1Salt)), (1 - a) / a);
}

bool RankModel::ProcessRanks::informative(std::uint64_t key) const {
  const double w = process.params().calibration;
  return w >= 1 || open_unit(mix64(key ^ kInformativeSalt)) < w;
}

double RankModel::ProcessRanks::log_listed(double p1, double log_p1, double log_rest, int j) const {
  if (j == 1) return log_p1;
  if (tail_shape <= 0) return log_p1 + double(j - 1) * log_rest;  // p1 (1 - p1)^(j - 1)
  return std::log(std::max(rank_probability_given_top1(p1, j - 1, tail_shape), 1e-300));  // the law's own
}

RankModel RankModel::from_process(const AcceptanceProcess& process, int max_k, std::uint64_t seed) {
  if (max_k < 1) throw models::InputError(fmt::format("{}: candidates {} (must be >= 1)", process.source(), max_k));
  auto pr = std::make_shared<ProcessRanks>(ProcessRanks{process, {}, {}, {}, false, seed, 0});
  const auto& params = process.params();
  pr->calibrated = params.confidence == search::DraftConfidence::calibrated;
  pr->tail_shape = params.rank_tail_shape;
  for (int s = 0; s < 2; ++s) {
    pr->alpha[std::size_t(s)] = process.state_alpha(s, 1);
    double cdf = 0;
    for (int j = 1; j <= max_k; ++j) {
      cdf = std::min(1.0, cdf + process.rank_probability(s, 1, j - 1));
      pr->cdf[std::size_t(s)].push_back(cdf);
    }
  }
  // The text's states: the process's chain, one uniform per position (AcceptanceSampler's rule),
  // starting stationary. An independent process has one state's law; its states are not drawn.
  pr->states.assign(std::size_t(kProcessTextTokens), std::uint8_t(params.easy_share > 0 ? 0 : 1));
  if (!process.is_independent()) {
    // Its own stream, apart from the tree's context keys (which hash the same seed).
    SplitMix64 rng(mix64(seed ^ kStateStreamSalt));
    int state = rng.uniform() < params.easy_share ? 0 : 1;
    for (auto& st : pr->states) {
      const double u = rng.uniform();
      if (u >= params.persistence) state = (u - params.persistence) / (1 - params.persistence) < params.easy_share ? 0 : 1;
      st = std::uint8_t(state);
    }
  }
  RankModel m;
  // The beam's mean order and the top-p nucleus: the stationary marginal rank law.
  const double pi = params.easy_share;
  for (int j = 1; j <= max_k; ++j) {
    double pj = 0;
    for (int s = 0; s < 2; ++s) pj += (s == 0 ? pi : 1 - pi) * process.rank_probability(s, 1, j - 1);
    m.log_prob_.push_back(std::log(std::max(pj, 1e-300)));
  }
  for (std::size_t j = 1; j < m.log_prob_.size(); ++j) m.log_prob_[j] = std::min(m.log_prob_[j], m.log_prob_[j - 1]);
  m.confidence_ = pr->calibrated ? DraftConfidence::calibrated : DraftConfidence::constant;
  m.top1_mean_ = process.mean_acceptance(1);
  m.mean_node_.top1 = m.top1_mean_;
  m.mean_node_.log_top1 = std::log(std::max(m.top1_mean_, 1e-300));
  m.mean_node_.log_rest_shift = std::log1p(-std::min(m.top1_mean_, 1 - 1e-12));
  m.process_ = std::move(pr);
  return m;
}

long long RankModel::process_draw_below(std::mt19937_64& rng, long long depth, const TreeNode& parent) const {
  const ProcessRanks& pr = *process_;
  const int state = pr.state_at(depth);
  // The probability the target's token is the parent's rank-1 candidate: the parent's own p1 when
  // its confidence is informative, else its state's alpha.
  const double p = pr.calibrated && pr.informative(parent.key) ? parent.top1 : pr.alpha[std::size_t(state)];
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  const double u = u01(rng);
  if (u < p) return 1;
  // Rank j >= 2 with lower_rank_share of the rank tail's probability (rank_tail.hpp): u - p is
  // the quantile w of the lower ranks, scaled by lower_rank_share (1 - p); past it, outside.
  const double tail = pr.process.params().lower_rank_share * (1 - p);
  if (!(p > 0) || !(tail > 0)) return kOutsideRank;
  const double w = (u - p) / tail;
  if (w >= 1) return kOutsideRank;
  // Ranks too deep for any list are the deepest listable one (outside every shorter list).
  return lower_rank_for_quantile(p, w, pr.tail_shape, kOutsideRank - 1);
}

}  // namespace search::specpipe
