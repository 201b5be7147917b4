#pragma once
// The rank law of RankModel::from_process (speculative_tree.hpp): the acceptance process's states
// along the text and what each state says about the target's rank. Internal to the rank model.
#include <array>
#include <cstdint>
#include <vector>

#include "search/acceptance/acceptance_process.hpp"
#include "search/scenarios/specpipe/speculative_tree.hpp"

namespace search::specpipe {

struct RankModel::ProcessRanks {
  AcceptanceProcess process;
  std::vector<std::uint8_t> states;          // the hidden state at text depth d: states[d mod size]
  std::array<double, 2> alpha{};             // the states' top-1 acceptance (draft depth 1)
  std::array<std::vector<double>, 2> cdf;    // P(rank <= j | state), j = 1 .. max_k (marginal over p1)
  bool calibrated = false;
  std::uint64_t seed = 1;

  int state_at(long long depth) const { return states[std::size_t(depth % (long long)states.size())]; }
  // The draft's top-1 probability p1 at a context of `key` in `state` (its Beta(c, 1) quantile
  // under calibrated confidence, the state's alpha otherwise).
  double top1(std::uint64_t key, int state) const;
  // Whether the draft's p1 at that context decides acceptance (the process's `calibration` share).
  bool informative(std::uint64_t key) const;
};

}  // namespace search::specpipe
