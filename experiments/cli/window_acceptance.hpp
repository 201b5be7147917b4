#pragma once
// The acceptances `specdse window` (and `specdse.window`) evaluate each window under: independent
// token accuracies (paper 001's eq. 10, column `alpha`), or every fit of an acceptance process band
// (column `acceptance`: expected tokens per iteration are the process's chain tokens per call, so
// acceptance that comes in stretches moves the best window).
#include <string>
#include <vector>

#include "search/window/chain_sd.hpp"

namespace experiments {

struct WindowAcceptance {
  double alpha = 0;           // independent accuracy (alpha mode)
  std::string label;          // the band's fit (band mode): "NAME fit i of n (persistence=...)"
  search::ExpectedTokens expected_tokens;
};

struct WindowAcceptances {
  bool from_band = false;
  std::string band_note;      // the band and what it was fitted to (band mode)
  // Labels: "NAME fit i of n (OPEN=value)", the central fit marked " [central]".
  std::vector<WindowAcceptance> cases;
};

// Exactly one of `alphas` (each in (0, 1)) and `band` (a name or path); InputError naming the
// options otherwise (`alpha_option`, `band_option`: the front end's names).
WindowAcceptances window_acceptances(const std::vector<double>& alphas, const std::string& band,
                                     const std::string& config_dir, const std::string& alpha_option,
                                     const std::string& band_option);

}  // namespace experiments
