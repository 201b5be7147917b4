#pragma once
// Timing harness for the golden kernels: warm-up runs, then repeated timed runs with the
// caches flushed before each (a decode step streams its weights from DRAM, so a hot-cache
// timing would flatter the CPU), reporting the minimum and the median. On a shared, noisy
// machine the minimum is the stable statistic.
#include <cstddef>
#include <functional>
#include <vector>

namespace sim {

struct TimingStats {
  double min_s = 0;
  double median_s = 0;
  int repeats = 0;
  std::vector<double> samples_s;  // every timed run, in order

  // The statistics over this run's samples and `other`'s (rounds of the same kernel).
  void merge(const TimingStats& other);
};

// Evicts the caches by writing and reading a buffer larger than them.
class CacheFlusher {
 public:
  explicit CacheFlusher(std::size_t bytes);
  void flush();

 private:
  std::vector<double> buffer_;
  double sink_ = 0;
};

TimingStats time_repeated(const std::function<void()>& kernel, int warmup, int repeats,
                          const std::function<void()>& before_each = {});

}  // namespace sim
