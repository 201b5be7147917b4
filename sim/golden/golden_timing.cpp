#include "sim/golden/golden_timing.hpp"

#include <algorithm>
#include <chrono>

#include "models/config_error.hpp"

namespace sim {

CacheFlusher::CacheFlusher(std::size_t bytes) : buffer_(std::max<std::size_t>(1, bytes / sizeof(double)), 1.0) {}

void CacheFlusher::flush() {
  double s = 0;
  for (auto& v : buffer_) {
    v += 1.0;
    s += v;
  }
  sink_ += s;  // keeps the loop from being optimised away
  asm volatile("" : : "r"(&sink_) : "memory");
}

TimingStats time_repeated(const std::function<void()>& kernel, int warmup, int repeats,
                          const std::function<void()>& before_each) {
  if (repeats < 1) throw models::InputError("--repeats: expected an integer >= 1, got " + std::to_string(repeats));
  for (int i = 0; i < warmup; ++i) {
    if (before_each) before_each();
    kernel();
  }
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    if (before_each) before_each();
    const auto t0 = std::chrono::steady_clock::now();
    kernel();
    const auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  TimingStats s;
  s.samples_s = times;
  s.merge({});
  return s;
}

void TimingStats::merge(const TimingStats& other) {
  samples_s.insert(samples_s.end(), other.samples_s.begin(), other.samples_s.end());
  std::vector<double> sorted = samples_s;
  std::sort(sorted.begin(), sorted.end());
  repeats = int(sorted.size());
  if (sorted.empty()) return;
  min_s = sorted.front();
  median_s = sorted.size() % 2 ? sorted[sorted.size() / 2]
                               : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
}

}  // namespace sim
