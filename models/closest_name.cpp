#include "models/closest_name.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace models {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string lower_case(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

namespace {

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

// Whether `shorter`'s characters appear in order in `longer`, the first ones equal.
bool abbreviates(const std::string& shorter, const std::string& longer) {
  if (shorter.empty() || longer.empty() || shorter[0] != longer[0]) return false;
  std::size_t i = 0;
  for (char c : longer)
    if (i < shorter.size() && c == shorter[i]) ++i;
  return i == shorter.size();
}

}  // namespace

std::string closest_name(const std::string& name, const std::vector<std::string>& known) {
  // Names far longer than any config name are not guessed at (and the quadratic distance stays
  // cheap on fuzzed kilobyte-long input).
  constexpr std::size_t kMaxCompared = 200;
  // Three edits catch a dropped or doubled letter, a plural and a swapped pair, and are still
  // far from every other name the project uses.
  constexpr std::size_t kMaxEdits = 3;
  constexpr std::size_t kMinPrefix = 3;
  constexpr std::size_t kMinAbbreviation = 2, kMaxAbbreviation = 4;
  if (name.empty() || name.size() > kMaxCompared) return "";
  const std::string n = lower_case(name);
  // rank: 0 prefix, 1 edits, 2 abbreviation; within a rank the fewest edits wins.
  int best_rank = 3;
  std::size_t best_edits = std::string::npos;
  std::string closest;
  for (const auto& k : known) {
    if (k.empty() || k.size() > kMaxCompared) continue;
    const std::string l = lower_case(k);
    const std::size_t d = edit_distance(n, l);
    const std::string& shorter = n.size() <= l.size() ? n : l;
    const std::string& longer = n.size() <= l.size() ? l : n;
    int rank = 3;
    if (shorter.size() >= kMinPrefix && starts_with(longer, shorter)) rank = 0;
    // Fewer edits than the shorter name has letters: "xml" is not a misspelt "csv".
    else if (d <= kMaxEdits && d < shorter.size()) rank = 1;
    else if (shorter.size() >= kMinAbbreviation && shorter.size() <= kMaxAbbreviation && abbreviates(shorter, longer))
      rank = 2;
    if (rank < best_rank || (rank == best_rank && d < best_edits)) best_rank = rank, best_edits = d, closest = k;
  }
  return best_rank < 3 ? closest : "";
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& known) {
  const std::string closest = closest_name(name, known);
  return closest.empty() ? "" : fmt::format(" (did you mean '{}'?)", closest);
}

}  // namespace models
