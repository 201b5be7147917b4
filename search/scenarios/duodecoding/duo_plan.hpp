#pragma once
// The logical side of the three decoding methods, iteration by iteration over an acceptance
// stream (position_stream.hpp): what each iteration drafts, verifies and appends. Timing is
// not decided here: outcomes do not depend on it (both sides of a DuoDecoding iteration always
// finish before they meet), so a plan is made first and then laid on the timeline
// (duo_timeline.hpp), which decides every duration and idle time.
//
// DuoDecoding (paper 003 §3.1, §3.3, Algorithm 1). Iteration i starts from the verified text plus
// the tokens left unverified by iteration i-1 (`pending`). The target (GPU) runs one forward
// over x = pending + 1 tokens (the last appended token and the pending ones): it verifies the
// pending tokens and predicts the next token. At the same time the draft (CPU) drafts from the
// same input, assuming the pending tokens hold: `budget` forward passes, one or several
// sequences (sequence_rule.hpp). They meet; verification: the pending tokens first (speculative
// sampling, in order); a rejection appends the target's resampled token, discards the new draft
// and both restart from the verified prefix (pending = 0). If all pending tokens hold, the first
// token of the new draft is checked against the target's prediction: the sequence whose first
// token is the target's (its rank among the draft's candidates < sequences) is accepted, its
// other tokens become the next pending ones; if none matches, the target's token is appended
// and pending = 0. Each iteration appends pending_accepted + 1 tokens.
//
// SpS (Leviathan et al. 2023): the draft drafts gamma tokens, then the target verifies them
// in one forward over gamma + 1 tokens; accepted tokens plus one (resampled or bonus) are
// appended. AD: one target forward per token.
#include <map>
#include <string>
#include <vector>

#include "search/scenarios/duodecoding/duo_costs.hpp"
#include "search/scenarios/duodecoding/position_stream.hpp"
#include "search/scenarios/duodecoding/sequence_rule.hpp"
#include "search/window/chain_sd.hpp"

namespace search::duodecoding {

enum class Method { ad, sps, duo };
std::string to_string(Method m);

struct PlannedIteration {
  int x = 1;                  // tokens the target's forward processes
  int draft_passes = 0;       // draft forward passes (one token each)
  int sequences = 0;          // draft sequences (DuoDecoding; SpS 1; AD 0)
  int draft_tokens = 0;       // tokens drafted and sent to the target
  int gained = 0;             // tokens appended to the verified text
  bool first_verified = false;  // DuoDecoding: this iteration's draft reached verification
  bool top1_accepted = false;   // ... and its best sequence's first token was accepted
};

struct Plan {
  Method method = Method::ad;
  int budget = 0;             // DuoDecoding budget / SpS gamma
  std::vector<PlannedIteration> iterations;
  long long tokens = 0;       // appended in all
  bool source_exhausted = false;  // a finite trace ended before `tokens` were produced
  // DuoDecoding: iterations per sequence count (paper 003 Fig. 5) and, over the iterations whose
  // draft reached verification, [top-1 first token accepted? 0/1][sequences > 1? 0/1] counts
  // (the prediction confusion table, paper 003 Table 4).
  std::map<int, long long> sequence_counts;
  long long confusion[2][2] = {{0, 0}, {0, 0}};
};

// Each takes the stream by value: every method replays it from its start.
Plan plan_duo(PositionStream stream, int budget, const SequencePolicy& policy, long long tokens);
Plan plan_sps(PositionStream stream, int gamma, long long tokens);
Plan plan_ad(long long tokens);

// SpS's window: the gamma in [1, gamma_max] that maximises paper 001's objective (1),
// E(a, gamma) / (gamma * draft pass + T_v(gamma + 1) + the two transfers), with the stream's
// per-token acceptance a and these costs. `transfer_s(gamma)` gives the two transfers' time.
template <class Transfer>
int best_sps_gamma(double accuracy, const DuoCosts& costs, Transfer transfer_s, int gamma_max);

template <class Transfer>
int best_sps_gamma(double accuracy, const DuoCosts& costs, Transfer transfer_s, int gamma_max) {
  int best = 1;
  double best_rate = -1;
  for (int g = 1; g <= gamma_max; ++g) {
    const double t = g * costs.draft_pass_s() + costs.target_forward_s(g + 1) + transfer_s(g);
    const double rate = chain_expected_tokens(accuracy, g) / t;
    if (rate > best_rate * (1 + 1e-12)) best = g, best_rate = rate;  // ties: the shorter window
  }
  return best;
}

}  // namespace search::duodecoding
