#pragma once
// DuoDecoding's draft sequences (paper 003 §3.2). The draft's probabilities stand in for
// acceptance: p(i, j) is the draft's probability of its j-th best token at draft position i.
// The threshold is the probability that the two first tokens of the best sequence are both
// accepted, theta = p(1, 1) * p(2, 1); every first-position token whose probability exceeds it,
// p(1, j) > theta, starts a sequence of its own. The best token always does (p(1, 1) > theta
// unless p(2, 1) = 1), so there is at least one sequence.
//
// The budget gamma counts the draft's forward passes per iteration (one token each, llama.cpp
// at batch 1): the first pass yields the first token of every sequence (its top-n candidates),
// the other gamma - 1 passes extend the sequences round-robin, best first. More sequences thus
// make each one shorter at the same cost, as the paper's Table 2 discussion says.
#include <vector>

namespace search::duodecoding {

struct SequencePolicy {
  bool dynamic = false;
  int static_sequences = 1;  // sequences when not dynamic
  int max_sequences = 4;     // cap of the dynamic rule (candidates listed per position, at most)
};

// theta = p(1, 1) * p(2, 1).
double sequence_threshold(double first_top1, double second_top1);
// Number of sequences the dynamic rule opens: #{j : p(1, j) > theta}, at least 1, at most
// max_sequences and the number of listed probabilities. `first_probs` are the draft's top-k
// probabilities at the first draft position (non-increasing), `second_top1` p(2, 1).
int dynamic_sequence_count(const std::vector<double>& first_probs, double second_top1, int max_sequences);

// Tokens of each sequence when `sequences` share `budget` forward passes (see above): sequence j
// has 1 + floor((budget - 1) / n) tokens, plus one for the first (budget - 1) mod n sequences.
std::vector<int> sequence_lengths(int budget, int sequences);

}  // namespace search::duodecoding
