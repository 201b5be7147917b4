#pragma once
// The state both fast-forwards (layer_fast_forward, chunk_fast_forward) key to recognise a
// repeat: what decides the rest of the run from the start of a cycle on.
#include <array>
#include <cstddef>
#include <limits>

#include "sim/fpga/accelerator/scoreboard.hpp"

namespace sim::accelerator {

// A key entry for "no instruction" (an exhausted queue, an idle unit) and, for the heads,
// "none reached yet".
inline constexpr long long none = std::numeric_limits<long long>::min();

// What both fast-forwards key at the start of cycle t: per queue the position of the next
// instruction not issued before t (one issued at t counts as not yet issued), and per unit
// the instruction it issued last before t if that ends at or after t (-1: none): the store
// port, the matrix engine and the SFU, then the memory controller.
struct StateSnapshot {
  std::array<std::size_t, queue_count> heads{};
  std::array<int, queue_count> head_instruction{};  // the instruction at each head (-1: none left)
  std::array<int, unit_count> in_flight{};
};
StateSnapshot take_snapshot(const Scoreboard& board, long long t);

}  // namespace sim::accelerator
