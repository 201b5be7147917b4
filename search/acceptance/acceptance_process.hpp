#pragma once
// The acceptance process: where every scenario's acceptance comes from.
//
// Acceptance is not independent from token to token. Text has easy stretches (boilerplate,
// repeated names, numbers, code idioms) where a draft agrees with the target for many tokens in
// a row, and hard ones where it keeps missing; paper 000's measured AAT(x) keeps growing like
// log x where independent acceptance saturates at 1 / (1 - alpha), and DuoDecoding's first-token
// checks (paper 003 Table 4), which mostly fall right after a rejection, see a far lower hit rate
// than its speed-ups imply for the average token. The process models that with a hidden state
// per position of the text the target produces, a two-state Markov chain (the Gilbert-Elliott
// channel of burst-error models):
//
//   state s in {easy, hard}; stationary share of easy positions pi = easy_share;
//   from one position to the next the state is kept with probability persistence (lambda),
//   else drawn afresh from (pi, 1 - pi): P = lambda I + (1 - lambda) 1 pi^T, whose second
//   eigenvalue is lambda (the lag-1 correlation of the state; 0: states independent).
//
// In state s at draft depth d (1-based, the position's place in this iteration's draft) the
// draft's top-1 token is the target's with mean probability
//   alpha_s(d) = min(alpha_s * depth_decay^(d - 1), alpha_cap),
// and its rank-r candidate (ranked by the draft's probability) with probability
// q_s(d, r) = E[p1 (1 - p1)^r], p1 the draft's top-1 probability there (or the log-logistic law of
// rank_tail.hpp where rank_tail_shape is set): p1 = alpha_s(d) exactly
// under constant confidence, or p1 ~ Beta(c, 1) with c = a / (1 - a), mean a, under calibrated
// confidence (the draft is accepted with probability exactly its own p1, the assumption paper 003
// §3.2 makes when it uses draft probabilities as acceptance proxies), or partly so (the
// `calibration` weight below mixes the two). The geometric rank tail is this model's default
// assumption, not a published figure; rank_tail_shape replaces it with the heavier log-logistic
// tail (rank_tail.hpp, which says why paper 002's band tried and does not use it).
//
// Independent acceptance is the special case alpha_easy = alpha_hard (or persistence 0 with a
// single alpha): under constant confidence it is the positional model of paper 004's trees
// (positional_acceptance.hpp) exactly; under calibrated confidence its p1 law is that of
// probability_trace.hpp's calibrated generator, whose lower candidates differ (stick-breaking
// there, the geometric tail here so that trees have exact expectations).
//
// Expectations are exact (2 x 2 linear algebra, no sampling): a tree's tokens per call under
// standard speculative decoding, where an iteration starts at the position after the token the
// previous iteration emitted, so its start state is the stationary distribution of the
// iteration-to-iteration chain (after a rejection the state leans hard). Samplers draw the same
// process position by position along the text (seeded, identical on every platform), for the
// algorithms whose own selection shapes what is observed (DuoDecoding's checks, SpecPipe's
// levels).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "search/acceptance/chain_trace.hpp"
#include "search/acceptance/probability_trace.hpp"
#include "search/acceptance/trace.hpp"

namespace search {

enum class DraftConfidence { constant, calibrated };
std::string to_string(DraftConfidence c);
// "constant" / "calibrated"; InputError naming `key` otherwise.
DraftConfidence parse_draft_confidence(const std::string& key, const std::string& text);

struct AcceptanceProcessParams {
  double alpha_easy = 0.7;   // mean top-1 acceptance at depth 1 in the easy state, (0, 1]
  double alpha_hard = 0.7;   // ... in the hard state, (0, alpha_easy]
  double easy_share = 1.0;   // stationary share of easy positions, [0, 1]
  double persistence = 0.0;  // lag-1 correlation of the state, [0, 1)
  double depth_decay = 1.0;  // per-depth factor of alpha within one draft, > 0
  double alpha_cap = 0.99;   // no draft is right with certainty at any depth, (0, 1]
  DraftConfidence confidence = DraftConfidence::constant;
  // Calibrated confidence only: how far the draft's p1 tells acceptance apart, [0, 1]. A
  // position is accepted with probability calibration * p1 + (1 - calibration) * alpha_s(d):
  // 1 is a perfectly calibrated draft, 0 one whose confidence says nothing beyond the state.
  double calibration = 1.0;
  // How often, when the draft's top-1 misses, the target's token is where the geometric tail
  // puts it among the draft's lower candidates: rank r >= 1 has probability lower_rank_share *
  // q_s(d, r), the rest is outside every candidate list. (0, 1]; 1 is the geometric tail.
  double lower_rank_share = 1.0;
  // The law of the draft's listed probabilities below its top-1 (rank_tail.hpp): 0 the geometric
  // p1 (1 - p1)^r, a shape in (0, 1] the log-logistic law with that shape (heavier tailed).
  double rank_tail_shape = 0.0;

  // Throws models::InputError naming `source` and the offending field.
  void validate(const std::string& source = "acceptance process") const;
  // Every field as "key=value" pairs, for CSV footers and provenance.
  std::string describe() const;
  // Every field equal (a memo key: two processes with equal parameters draw alike).
  bool operator==(const AcceptanceProcessParams& o) const;
};

// The iteration-start state distribution: {P(easy), P(hard)}.
using StateDistribution = std::array<double, 2>;

class AcceptanceProcess {
 public:
  explicit AcceptanceProcess(AcceptanceProcessParams params, std::string source = "acceptance process");
  // Independent acceptance with per-depth decay: alpha_easy = alpha_hard = alpha.
  static AcceptanceProcess independent(double alpha, DraftConfidence confidence = DraftConfidence::constant,
                                       double depth_decay = 1.0, std::string source = "independent acceptance");

  const AcceptanceProcessParams& params() const { return params_; }
  const std::string& source() const { return source_; }
  bool is_independent() const;

  // Mean top-1 acceptance of a depth-d token at a stationary position (no selection).
  double mean_acceptance(int depth = 1) const;
  // alpha_s(d) and q_s(d, r) of the header (state 0 easy, 1 hard).
  double state_alpha(int state, int depth) const;
  double rank_probability(int state, int depth, int rank) const;

  // Expected tokens per call (AAT including the bonus token) of a prefix-closed tree under
  // standard speculative decoding, at the stationary iteration start. `nodes` are the draft's
  // (non-root) rank paths; InputError when not prefix-closed. chain_tpc(n) is the rank-0 chain
  // of n draft tokens (AAT(n + 1) of a chain).
  double tree_tpc(const std::vector<RankPath>& nodes) const;
  double chain_tpc(int length) const;
  // The same from a given start distribution, and the start distribution that standard
  // speculative decoding settles into with this tree.
  double tree_tpc_from(const std::vector<RankPath>& nodes, const StateDistribution& start) const;
  StateDistribution stationary_start(const std::vector<RankPath>& nodes) const;
  // The tree with `widths[d - 1]` nodes at depth d that this process ranks best, built level by
  // level: each depth keeps the children (ranks 0 .. width - 1 of every kept node) with the
  // highest prior (the product of stationary rank probabilities along the path), as paper 000's
  // prior-score search does with its own prior; ties go to the lexicographically smaller path.
  // InputError for a width below 1 or above 4096.
  std::vector<RankPath> best_tree_with_widths(const std::vector<int>& widths) const;
  // The draft nodes in best-first order of their prior (the product of stationary rank
  // probabilities along the path): every prefix of the list is a prefix-closed tree, the best
  // this prior knows of its size (paper 000's prior-score search, with the process as the prior).
  // At most `nodes` nodes, depth <= max_depth, ranks < max_branching.
  std::vector<RankPath> best_first_nodes(int nodes, int max_depth = 64, int max_branching = 64) const;
  // Probability that the target's token at a stationary position is among the draft's top k
  // candidates (a top-k hit rate, paper 002 Fig. 7).
  double top_k_hit(int k, int depth = 1) const;

 private:
  AcceptanceProcessParams params_;
  std::string source_;
};

// Position-by-position draws of the process along the text (probability_trace.hpp records):
// each call moves to the next position (its state follows the Markov chain) and draws the
// draft's candidates there: p1 (constant, or Beta-drawn under calibrated confidence), the listed
// probabilities of ranks j < top_k under the process's rank tail (p1 (1 - p1)^j, geometric), and
// the target's rank drawn from them (-1 beyond the list). An independent process draws no state.
class AcceptanceSampler {
 public:
  AcceptanceSampler(AcceptanceProcess process, int top_k, std::uint64_t seed);
  // Starts in a stationary state (drawn from easy_share).
  ProbabilityPosition next(int depth = 1);
  int state() const { return state_; }
  const AcceptanceProcess& process() const { return process_; }

 private:
  AcceptanceProcess process_;
  int top_k_;
  SplitMix64 rng_;
  int state_ = 0;
  bool started_ = false;
};

}  // namespace search
