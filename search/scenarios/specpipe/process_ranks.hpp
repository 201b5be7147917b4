#pragma once
// The rank law of RankModel::from_process (speculative_tree.hpp): the acceptance process's states
// along the text and what each state says about the target's rank, with the helpers both rank
// models share. Internal to the rank model.
#include <array>
#include <cstdint>
#include <vector>

#include "search/acceptance/acceptance_process.hpp"
#include "search/acceptance/rank_tail.hpp"
#include "search/scenarios/specpipe/speculative_tree.hpp"

namespace search::specpipe {

// Shared by the rank models (speculative_tree.cpp, process_ranks.cpp):
// a rank the target's token takes when it is outside every candidate list,
inline constexpr long long kOutsideRank = 1LL << 40;

// and SplitMix64's finaliser, which turns a context key into 64 well-mixed bits.
inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

struct RankModel::ProcessRanks {
  AcceptanceProcess process;
  std::vector<std::uint8_t> states;          // the hidden state at text depth d: states[d mod size]
  std::array<double, 2> alpha{};             // the states' top-1 acceptance (draft depth 1)
  std::array<std::vector<double>, 2> cdf;    // P(rank <= j | state), j = 1 .. max_k (marginal over p1)
  bool calibrated = false;
  std::uint64_t seed = 1;
  double tail_shape = 0;                     // the process's rank_tail_shape (0: geometric)

  int state_at(long long depth) const { return states[std::size_t(depth % (long long)states.size())]; }
  // The draft's top-1 probability p1 at a context of `key` in `state` (its Beta(c, 1) quantile
  // under calibrated confidence, the state's alpha otherwise).
  double top1(std::uint64_t key, int state) const;
  // Whether the draft's p1 at that context decides acceptance (the process's `calibration` share).
  bool informative(std::uint64_t key) const;
  // log of the probability a node of top-1 probability p1 (log p1 given) lists for its rank-j
  // candidate (j >= 1), under the process's rank tail (rank_tail.hpp).
  double log_listed(double p1, double log_p1, double log_rest, int j) const;
};

}  // namespace search::specpipe
