#include "sim/cpu/cpu_core_model.hpp"

#include <algorithm>
#include <cmath>

#include "models/cycle_range.hpp"

namespace sim {

namespace {
// Progress within this much of 1 counts as finished: absorbs floating-point rounding of
// p0 + k * rate (relative error ~1e-16 per operation, regions < 1e8 cycles) without ever
// skipping a real cycle (one cycle of progress is > 1e-8 for any region < 1e8 cycles).
constexpr double kFinishSlack = 1e-9;
}  // namespace

CpuCore::CpuCore(std::int64_t compute_cycles, double dram_bytes, bool stream_then_compute)
    : compute_cycles_(compute_cycles), dram_bytes_(dram_bytes) {
  done_ = compute_cycles_ <= 0 && dram_bytes_ <= 0;
  stream_first_ = stream_then_compute && dram_bytes_ > 0 && compute_cycles_ > 0;
}

double CpuCore::demand() const {
  if (!streams()) return 0;
  if (stream_first_ || compute_cycles_ <= 0) return std::numeric_limits<double>::infinity();
  return dram_bytes_ / double(compute_cycles_);
}

void CpuCore::set_share(long long now, double dram_share) {
  p0_ = progress(now);
  t0_ = now;
  if (stream_first_ && !computing_) {  // the stream alone, at whatever it is granted
    rate_ = dram_share / dram_bytes_;
    return;
  }
  // Granted at least its demand: compute-bound, exactly 1 / compute_cycles (the closed form's
  // rate, so an unshared core finishes on the closed form's cycle).
  if (!streams() || dram_share >= demand())
    rate_ = 1.0 / double(compute_cycles_);
  else
    rate_ = dram_share / dram_bytes_;
}

bool CpuCore::finish_phase(long long t) {
  if (stream_first_ && !computing_) {
    computing_ = true;  // the compute phase starts from nothing at cycle t
    p0_ = 0;
    t0_ = t;
    rate_ = 1.0 / double(compute_cycles_);
    return false;
  }
  done_ = true;
  return true;
}

bool CpuCore::finished_at(long long t) const { return progress(t) >= 1.0 - kFinishSlack; }

long long CpuCore::finish_time() const {
  // Solve p0 + k * rate >= 1 - slack, then settle k on the predicate itself so that this and a
  // cycle-by-cycle check of finished_at() name the same cycle.
  long long k = std::max<long long>(
      1, models::checked_cycles((1.0 - kFinishSlack - p0_) / rate_, "CPU model: a kernel at its share of the DRAM"));
  while (!finished_at(t0_ + k)) ++k;
  while (k > 1 && finished_at(t0_ + k - 1)) --k;
  return t0_ + k;
}

std::vector<CpuCore> deal_to_cores(const roofline::CpuKernel& kernel) {
  std::vector<CpuCore> cores;
  cores.reserve(kernel.threads);
  for (int c = 0; c < kernel.threads; ++c) {
    const std::int64_t n = kernel.items_of_core(c);
    cores.emplace_back(n * kernel.item_cycles, double(n) * kernel.item_dram_bytes, kernel.stream_then_compute);
  }
  return cores;
}

}  // namespace sim
