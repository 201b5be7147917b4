#include "models/closest_name.hpp"

#include <fmt/format.h>

#include <algorithm>

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

std::string did_you_mean(const std::string& name, const std::vector<std::string>& known) {
  // Three edits catch a dropped or doubled letter, a plural and a swapped pair, and are still
  // far from every other name the project uses.
  constexpr std::size_t kMaxEdits = 3;
  std::string closest;
  std::size_t best = std::string::npos;
  for (const auto& k : known) {
    const std::size_t d = edit_distance(name, k);
    if (d < best) best = d, closest = k;
  }
  return best <= kMaxEdits ? fmt::format(" (did you mean '{}'?)", closest) : "";
}

}  // namespace models
