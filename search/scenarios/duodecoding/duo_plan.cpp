#include "search/scenarios/duodecoding/duo_plan.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"

namespace search::duodecoding {

std::string to_string(Method m) {
  switch (m) {
    case Method::ad: return "AD";
    case Method::sps: return "SpS";
    case Method::duo: return "DuoDecoding";
  }
  return "?";
}

namespace {

void check_tokens(long long tokens) {
  if (tokens < 1) throw models::InputError(fmt::format("--tokens: expected >= 1, got {}", tokens));
}

// Sequences the draft opens for a draft whose first position is `ahead` records past the
// cursor; 0 when the stream ends there.
int sequences_at(PositionStream& s, std::size_t ahead, const SequencePolicy& policy) {
  const ProbabilityPosition* first = s.peek(ahead);
  if (!first) return 0;
  if (!policy.dynamic) return policy.static_sequences;
  const ProbabilityPosition* second = s.peek(ahead + 1);
  if (!second) return 0;
  // p(2, 1) is read from the next position of the text: the draft's second position follows its
  // best first token, which is the text's token whenever that token is accepted (an
  // approximation when it is not).
  return dynamic_sequence_count(first->top_probs, second->top_probs.front(), policy.max_sequences);
}

}  // namespace

Plan plan_duo(PositionStream s, int budget, const SequencePolicy& policy, long long tokens) {
  check_tokens(tokens);
  if (budget < 1) throw models::InputError(fmt::format("--budget: expected a draft budget >= 1, got {}", budget));
  if (!policy.dynamic && policy.static_sequences < 1)
    throw models::InputError(fmt::format("--sequences: expected static:N with N >= 1, got {}", policy.static_sequences));
  if (policy.dynamic && !s.has_probabilities())
    throw models::InputError(fmt::format(
        "--sequences dynamic: {} has no draft probabilities (a chain trace); give --alpha or a probability trace",
        s.source()));
  Plan p;
  p.method = Method::duo;
  p.budget = budget;
  int pending = 0;
  while (p.tokens < tokens) {
    // The iteration needs its pending records, its draft's first position and (dynamic) the
    // one after; a finite trace that cannot provide them ends the run.
    const int n = sequences_at(s, std::size_t(pending), policy);
    if (n == 0) {
      p.source_exhausted = true;
      break;
    }
    const std::vector<int> lengths = sequence_lengths(budget, n);
    PlannedIteration it;
    it.x = pending + 1;
    it.draft_passes = budget;
    it.sequences = n;
    it.draft_tokens = budget + n - 1;  // n first tokens from the first pass, one per later pass
    ++p.sequence_counts[n];
    bool restart = false;
    ProbabilityPosition r;
    for (int j = 0; j < pending; ++j) {
      s.next(r);
      ++it.gained;  // accepted, or the target's resampled token in its place
      if (!r.accepted) {
        restart = true;
        break;
      }
    }
    int next_pending = 0;
    if (!restart) {
      s.next(r);
      ++it.gained;
      it.first_verified = true;
      it.top1_accepted = r.accepted;
      ++p.confusion[r.accepted ? 1 : 0][n > 1 ? 1 : 0];
      if (r.rank >= 0 && r.rank < n) next_pending = lengths[std::size_t(r.rank)] - 1;
    }
    pending = next_pending;
    p.tokens += it.gained;
    p.iterations.push_back(it);
  }
  return p;
}

Plan plan_sps(PositionStream s, int gamma, long long tokens) {
  check_tokens(tokens);
  if (gamma < 1) throw models::InputError(fmt::format("SpS window: expected gamma >= 1, got {}", gamma));
  Plan p;
  p.method = Method::sps;
  p.budget = gamma;
  while (p.tokens < tokens) {
    if (!s.peek(std::size_t(gamma))) {  // gamma tested positions and the bonus / resampled one
      p.source_exhausted = true;
      break;
    }
    PlannedIteration it;
    it.x = gamma + 1;
    it.draft_passes = gamma;
    it.sequences = 1;
    it.draft_tokens = gamma;
    ProbabilityPosition r;
    int accepted = 0;
    bool rejected = false;
    for (int j = 0; j < gamma && !rejected; ++j) {
      s.next(r);
      if (r.accepted)
        ++accepted;
      else
        rejected = true;  // the resampled token takes this position
    }
    if (!rejected) s.next(r);  // the bonus token takes the next position of the text
    it.gained = accepted + 1;
    p.tokens += it.gained;
    p.iterations.push_back(it);
  }
  return p;
}

Plan plan_ad(long long tokens) {
  check_tokens(tokens);
  Plan p;
  p.method = Method::ad;
  p.budget = 0;
  PlannedIteration it;
  it.gained = 1;
  p.iterations.assign(std::size_t(tokens), it);
  p.tokens = tokens;
  return p;
}

}  // namespace search::duodecoding
