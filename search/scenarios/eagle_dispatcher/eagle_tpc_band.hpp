#pragma once
// The range of tokens per call that paper 004's chain statistics leave open for larger trees.
//
// The dispatcher's TPC of a tree comes from the positional model (independent acceptance with a
// per-depth decay, fitted to paper 004 Table 1's chains). Chains of 3, 5 and 7 tokens do not say
// how acceptance is correlated along the text, and trees depend on it: bursty processes that
// reproduce the same chains (acceptance_process.hpp) give a 64-node tree 15-20 % fewer tokens
// per call. The band is the positional model plus processes fitted to the positional model's own
// chain TPCs at lengths 3, 5 and 7 (so to the same data) with the state's persistence fixed at
// each of kBandPersistence (hard stretches at 30 % of the easy level, the positional rank tail);
// it is a sample of consistent processes, not a proven envelope.
#include <vector>

#include "search/acceptance/acceptance_process.hpp"
#include "search/acceptance/positional_acceptance.hpp"

namespace search {

inline constexpr double kBandPersistence[] = {0.5, 0.8, 0.95};

// The processes of the band (the positional model's own process first); each reproduces the
// positional chain TPCs at lengths 3, 5 and 7 within 0.02 or is left out.
std::vector<AcceptanceProcess> eagle_tpc_band(const PositionalAcceptance& positional);

}  // namespace search
