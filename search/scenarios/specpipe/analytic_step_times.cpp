// The step times behind paper 002's analytic E(T) (eq. (1)-(2) and the mechanism form), from
// the same stage and hop costs the timeline charges.
#include <algorithm>
#include <vector>

#include "search/scenarios/specpipe/specpipe_timeline.hpp"

namespace search::specpipe {

// t_i(w): see specpipe_timeline.hpp.
std::vector<double> paper_step_times(const TimingSetup& setup, const StageTimer& timer, int w) {
  const int m = timer.stages();
  const int last = timer.device_of(m - 1);
  const double emb = setup.target.hidden_size * setup.target.activation_bytes();
  std::vector<double> t;
  for (int i = 0; i < m; ++i) {
    const int d = timer.device_of(i);
    const double hop = i + 1 < m ? timer.activation_hop_s(d, timer.device_of(i + 1), w * (emb + w / 8.0)) : 0.0;
    t.push_back(timer.stage_s(i, w) + timer.hop_s(last, d, kVerifiedTokenBytes) + std::max(setup.prune_s, hop));
  }
  return t;
}

// T_hit and T_miss of the mechanism form (specpipe_timeline.hpp says what each holds).
MechanismTimes mechanism_times(const TimingSetup& setup, const StageTimer& timer, int w) {
  const int m = timer.stages();
  const int last = timer.device_of(m - 1);
  const double emb = setup.target.hidden_size * setup.target.activation_bytes();
  MechanismTimes r;
  r.t_miss = timer.hop_s(last, timer.device_of(0), kVerifiedTokenBytes) + setup.prune_s;
  for (int i = 0; i < m; ++i) {
    const int d = timer.device_of(i);
    const bool is_last = i + 1 == m;
    const double hop_w = is_last ? 0.0 : timer.activation_hop_s(d, timer.device_of(i + 1), w * (emb + w / 8.0));
    r.t_hit = std::max(r.t_hit, timer.stage_s(i, is_last ? 1 : w) + timer.hop_s(last, d, kVerifiedTokenBytes) +
                                    std::max(setup.prune_s, hop_w));
    r.t_miss += timer.stage_s(i, 1) + (is_last ? 0.0 : timer.activation_hop_s(d, timer.device_of(i + 1), emb + 1 / 8.0));
  }
  return r;
}

}  // namespace search::specpipe
