#include "search/scenarios/duodecoding/sequence_rule.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/config_error.hpp"

namespace search::duodecoding {

double sequence_threshold(double first_top1, double second_top1) { return first_top1 * second_top1; }

int dynamic_sequence_count(const std::vector<double>& first_probs, double second_top1, int max_sequences) {
  if (first_probs.empty()) throw models::InputError("dynamic sequences: the draft's probabilities are missing");
  if (max_sequences < 1) throw models::InputError(fmt::format("max sequences: expected >= 1, got {}", max_sequences));
  const double theta = sequence_threshold(first_probs.front(), second_top1);
  int n = 0;
  for (double p : first_probs)
    if (p > theta) ++n;
  return std::clamp(n, 1, std::min<int>(max_sequences, int(first_probs.size())));
}

std::vector<int> sequence_lengths(int budget, int sequences) {
  if (budget < 1 || sequences < 1)
    throw models::InputError(fmt::format("draft budget ({}) and sequences ({}) must be >= 1", budget, sequences));
  std::vector<int> len(std::size_t(sequences), 1 + (budget - 1) / sequences);
  for (int j = 0; j < (budget - 1) % sequences; ++j) ++len[std::size_t(j)];
  return len;
}

}  // namespace search::duodecoding
