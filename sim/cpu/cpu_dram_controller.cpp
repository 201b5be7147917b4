#include "sim/cpu/cpu_dram_controller.hpp"

#include <algorithm>
#include <numeric>

namespace sim {

void CpuDramController::allocate(std::vector<CpuCore>& cores, long long now) const {
  std::vector<int> streaming;
  for (int c = 0; c < int(cores.size()); ++c)
    if (!cores[c].done() && cores[c].streams()) streaming.push_back(c);
  // Water-filling: visit cores by increasing demand; each takes min(demand, even split of what
  // is left). Ties are broken by core index so the allocation is deterministic.
  std::stable_sort(streaming.begin(), streaming.end(),
                   [&](int a, int b) { return cores[a].demand() < cores[b].demand(); });
  std::vector<double> share(cores.size(), 0.0);
  double left = bytes_per_cycle_;
  for (std::size_t i = 0; i < streaming.size(); ++i) {
    const int c = streaming[i];
    const double even = left / double(streaming.size() - i);
    share[c] = std::min(cores[c].demand(), even);
    left -= share[c];
  }
  for (std::size_t c = 0; c < cores.size(); ++c)
    if (!cores[c].done()) cores[c].set_share(now, share[c]);
}

}  // namespace sim
