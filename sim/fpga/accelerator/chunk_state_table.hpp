#pragma once
// The chunk fast-forward's memory of the states it keyed (chunk_fast_forward.hpp): the state
// at a keyed load, its key, and the hash table that maps one to the other.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/fpga/accelerator/scoreboard.hpp"

namespace sim::accelerator {

struct ChunkState {
  long long t = 0;
  long long base = 0;                                // the load's index
  std::array<std::size_t, queue_count> heads{};      // queue positions (issued before t)
  std::array<long long, queue_count> outside_wait{};  // heads outside the run: first pending
                                                     // dependency at t (-1: ready; none: in run)
};

// The key: per queue a tag and an index, per unit a tag, an index and the remaining cycles.
struct ChunkKey {
  std::array<long long, 2 * queue_count + 3 * unit_count> v{};
  std::size_t n = 0;
  void push_back(long long x) { v[n++] = x; }
  bool operator==(const ChunkKey& o) const { return v == o.v; }
};

// The states keyed since the run began or the last jump: open addressing in one array that
// is cleared by a generation count (an unordered_map allocated and freed a node per key, and
// a design point keys ~10^5 states).
class ChunkStateTable {
 public:
  // The state stored under `key`, and whether it was just inserted (as `state`).
  std::pair<ChunkState*, bool> try_emplace(const ChunkKey& key, const ChunkState& state) {
    if (2 * (count_ + 1) > slots_.size()) grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash(key) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.generation != generation_) {
        s = {generation_, key, state};
        ++count_;
        return {&s.state, true};
      }
      if (s.key == key) return {&s.state, false};
    }
  }
  void clear() {
    ++generation_;
    count_ = 0;
  }

 private:
  struct Slot {
    std::uint64_t generation = 0;  // stored in this generation, else empty
    ChunkKey key;
    ChunkState state;
  };
  // Four independent multiply chains (one chain of 24 multiplies was a serial dependency).
  static std::size_t hash(const ChunkKey& k) {
    std::uint64_t h[4] = {0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull, 0x2545f4914f6cdd1dull};
    for (std::size_t i = 0; i < k.v.size(); ++i) h[i % 4] = (h[i % 4] ^ std::uint64_t(k.v[i])) * 0x100000001b3ull;
    const std::uint64_t x = (h[0] ^ (h[1] >> 17)) * 0x9e3779b97f4a7c15ull ^ (h[2] ^ (h[3] >> 29));
    return std::size_t(x ^ (x >> 31));
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<std::size_t>(64, 2 * old.size()), Slot{});
    const std::uint64_t live = generation_;
    ++generation_;  // every new slot (generation 0) reads as empty
    count_ = 0;
    for (Slot& s : old)
      if (s.generation == live && live != 0) try_emplace(s.key, s.state);
  }
  std::vector<Slot> slots_;
  std::uint64_t generation_ = 1;
  std::size_t count_ = 0;
};

}  // namespace sim::accelerator
