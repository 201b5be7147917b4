// TBT statistics of a timed plan (specpipe_timeline.hpp): nearest-rank percentiles over one
// sample per emitted token.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "search/scenarios/specpipe/specpipe_timeline.hpp"

namespace search::specpipe {

double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const std::size_t r = std::size_t(std::ceil(q * double(sorted.size())));
  return sorted[std::min(sorted.size() - 1, r == 0 ? 0 : r - 1)];
}

TbtStats stats_of(std::vector<double> samples) {
  TbtStats s;
  if (samples.empty()) return s;
  double sum = 0;
  for (double v : samples) sum += v;
  s.samples = (long long)samples.size();
  s.mean_s = sum / double(samples.size());
  std::sort(samples.begin(), samples.end());
  s.p50_s = percentile(samples, 0.50);
  s.p90_s = percentile(samples, 0.90);
  s.p99_s = percentile(samples, 0.99);
  s.tokens_per_s = s.mean_s > 0 ? 1.0 / s.mean_s : 0.0;
  return s;
}

TbtStats tbt_stats(const std::vector<double>& emit_s, const std::vector<int>& emit_tokens) {
  std::vector<double> samples;
  for (std::size_t e = 1; e < emit_s.size(); ++e)
    for (int t = 0; t < emit_tokens[e]; ++t) samples.push_back((emit_s[e] - emit_s[e - 1]) / emit_tokens[e]);
  return stats_of(std::move(samples));
}

TbtStats request_tbt_stats(const std::vector<std::vector<std::pair<double, int>>>& per_request) {
  std::vector<double> samples;
  for (const auto& ev : per_request)
    for (std::size_t e = 1; e < ev.size(); ++e)
      for (int t = 0; t < ev[e].second; ++t) samples.push_back((ev[e].first - ev[e - 1].first) / ev[e].second);
  return stats_of(std::move(samples));
}

}  // namespace search::specpipe
