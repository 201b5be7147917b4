#include "sim/gpu/gpu_dram_controller.hpp"

#include <algorithm>
#include <cmath>

namespace sim {

// A millionth of one cycle's transfer: far below a byte, far above double rounding of the shares.
DramController::DramController(double bytes_per_cycle)
    : bytes_per_cycle_(bytes_per_cycle), epsilon_(1e-6 * bytes_per_cycle) {}

void DramController::add(int launch, double bytes) { pending_.push_back(Pending{launch, bytes}); }

void DramController::advance(std::int64_t cycles) {
  if (cycles <= 0 || pending_.empty()) return;
  const double share = double(cycles) * bytes_per_cycle_ / double(pending_.size());
  for (auto& p : pending_) p.bytes -= share;
}

std::int64_t DramController::next_completion() const {
  if (pending_.empty()) return -1;
  double least = pending_.front().bytes;
  for (const auto& p : pending_) least = std::min(least, p.bytes);
  const double rate = bytes_per_cycle_ / double(pending_.size());
  return std::max<std::int64_t>(1, std::int64_t(std::ceil((least - epsilon_) / rate)));
}

void DramController::take_completions(std::vector<int>& out) {
  for (const auto& p : pending_)
    if (p.bytes <= epsilon_) out.push_back(p.launch);
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.bytes <= epsilon_; }),
                 pending_.end());
}

}  // namespace sim
