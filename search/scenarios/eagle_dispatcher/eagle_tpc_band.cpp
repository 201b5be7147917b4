#include "search/scenarios/eagle_dispatcher/eagle_tpc_band.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "search/acceptance/process_fit.hpp"

namespace search {
namespace {

// Chain lengths of paper 004 Table 1's EAGLE-3 rows, which the positional model was fitted to.
constexpr int kChainLengths[] = {3, 5, 7};
// A member must reproduce those chains this closely (Table 1 quotes two decimals).
constexpr double kChainTolerance = 0.02;

}  // namespace

std::vector<AcceptanceProcess> eagle_tpc_band(const PositionalAcceptance& positional) {
  std::vector<AcceptanceProcess> band{positional.process()};
  for (double persistence : kBandPersistence) {
    ProcessFitSpec spec;
    spec.source = fmt::format("{} (bursty, persistence {})", positional.source(), persistence);
    // The positional model's rank tail and cap, and hard stretches where the draft does 30 % as
    // well as in easy ones; the fit moves the easy level, the easy share and the decay to keep
    // the chains. Only the correlation differs from the positional model, so the band shows what
    // the correlation the chains leave open does to trees.
    spec.start = positional.process().params();
    spec.start.alpha_easy = std::min(0.95, spec.start.alpha_easy * 1.1);
    spec.start.alpha_hard = 0.3 * spec.start.alpha_easy;
    spec.start.easy_share = 0.8;
    spec.start.persistence = persistence;
    spec.free = {"alpha_easy", "easy_share", "depth_decay"};
    for (int n : kChainLengths)
      spec.statistics.push_back({fmt::format("positional chain {}", n), positional.chain_tpc(n), 1.0,
                                 [n](const AcceptanceProcess& p) { return p.chain_tpc(n); }});
    const ProcessFitResult fit = fit_acceptance_process(spec);
    if (fit.max_abs_residual <= kChainTolerance) band.push_back(fit.process);
  }
  return band;
}

}  // namespace search
