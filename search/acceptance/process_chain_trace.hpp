#pragma once
// A chain acceptance trace (chain_trace.hpp) drawn from the acceptance process, so that the window
// policies of paper 001 replay text whose acceptance comes in stretches as the fitted process says.
// Each iteration drafts along the text from the position after the previous iteration's emitted
// token: its k-th draft token (draft depth k) is the next position's draw, and the iteration's run
// of top-1 matches ends at the first position whose target token is not the draft's top-1 (that
// position carries the target's correction, so the next iteration starts one further). Runs are
// recorded untruncated (at most kMaxProcessRun tokens), so any window can replay them.
#include <cstdint>

#include "search/acceptance/acceptance_process.hpp"
#include "search/acceptance/chain_trace.hpp"

namespace search {

inline constexpr int kMaxProcessRun = 4096;

// `iterations` >= 1; InputError otherwise. Deterministic for a process and seed.
ChainTrace generate_process_chain_trace(const AcceptanceProcess& process, long long iterations, std::uint64_t seed);

}  // namespace search
