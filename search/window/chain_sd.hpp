#pragma once
// Chain (non-tree) speculative decoding with speculation window gamma (paper 001 §4.1, App. B.1).
// A chain draft proposes gamma tokens one after another; the target verifies all of them in one
// pass over x = gamma + 1 tokens. With token accuracy a (probability that each draft token is
// accepted given the previous ones were), the expected tokens per iteration, bonus included, are
//   E(a, gamma) = (1 - a^(gamma+1)) / (1 - a)                                   (eq. 10)
// and the objective (1) is E / (T_d(gamma) + T_v(gamma + 1)): tokens per second. Paper 001 writes
// T_d = gamma * a_q with a constant per-token draft time; here both latencies come from a table
// that is either filled from a latency engine (specdse's point) or from a constant cost ratio c.
#include <functional>
#include <string>
#include <vector>

#include "models/latency_engine.hpp"
#include "search/draft_placement.hpp"

namespace search {

// Expected tokens per iteration (accepted draft tokens + 1 bonus) for accuracy a in [0, 1].
double chain_expected_tokens(double accuracy, int gamma);

// Draft and verification seconds of one iteration for every window 0..gamma_max.
// gamma = 0 is autoregressive decoding: no draft, T_v(1).
class ChainLatency {
 public:
  // Paper 001's idealisation: T_v constant, draft time per token = cost_ratio * T_v.
  static ChainLatency constant(double cost_ratio, double t_verify_s, int gamma_max);
  // From an engine: draft_s(gamma) = t_draft(x = gamma + 1, L), verify_s(gamma) = t_verify(gamma + 1, L).
  // The workload's algorithm must be a chain draft. With a placement, draft_s is the draft's
  // passes on its own device plus the link transfers (search/draft_placement.hpp).
  static ChainLatency from_engine(const models::LatencyEngine& engine, const models::Workload& w,
                                  long long context, int gamma_max,
                                  const DraftPlacement& placement = DraftPlacement::same_device());

  int gamma_max() const { return int(draft_s_.size()) - 1; }
  double draft_s(int gamma) const { return draft_s_.at(std::size_t(gamma)); }
  double verify_s(int gamma) const { return verify_s_.at(std::size_t(gamma)); }
  double iteration_s(int gamma) const { return draft_s(gamma) + verify_s(gamma); }
  // c: one draft token's time over one AD target step (paper 001's latency ratio).
  double cost_ratio() const;

 private:
  std::vector<double> draft_s_, verify_s_;
};

// Objective (1): expected tokens per second at window gamma.
double chain_tokens_per_s(double accuracy, int gamma, const ChainLatency& latency);

struct GammaChoice {
  int gamma = 0;
  double expected_tokens = 1;
  double tokens_per_s = 0;
};
// The integer gamma in [gamma_min, latency.gamma_max()] maximising objective (1); ties go to the
// smaller window (less draft work for the same throughput).
GammaChoice optimal_gamma(double accuracy, const ChainLatency& latency, int gamma_min = 0);
// The same for any acceptance model: `expected_tokens(gamma)` tokens per iteration at window
// gamma (eq. 10 for an independent accuracy; an acceptance process's chain tokens per call).
using ExpectedTokens = std::function<double(int gamma)>;
GammaChoice optimal_gamma(const ExpectedTokens& expected_tokens, const ChainLatency& latency, int gamma_min = 0);

// One cell of paper 001 Fig. 5: gamma*(a, c) with T_v constant.
struct GammaStarCell {
  double accuracy = 0, cost_ratio = 0;
  GammaChoice best;
  double speedup = 1;  // over AD (gamma = 0)
};
std::vector<GammaStarCell> gamma_star_map(const std::vector<double>& accuracies,
                                          const std::vector<double>& cost_ratios, int gamma_max,
                                          int gamma_min = 0);

// Input checks shared by the CLI and library: throw models::InputError naming `what`.
void require_accuracy(const std::string& what, double accuracy);  // 0 < a < 1
// The largest window limit any command accepts: a latency table holds gamma_max + 1 engine
// steps and the policies replay every window up to it (work grows with the limit); paper 001's
// windows are tens of tokens, so 1024 leaves ample room (as `window --gamma-max`).
constexpr int kMaxWindowLimit = 1024;
void require_gamma_max(const std::string& what, int gamma_max);   // in [1, kMaxWindowLimit]

}  // namespace search
