#pragma once
// One CPU core inside a parallel region (sim/cpu): the SIMD cycles and DRAM bytes of the work
// items the static schedule dealt to it, and its progress through them. A core overlaps its
// stream with its FMAs (hardware prefetchers run ahead of the SIMD loop), so it advances at
//   rate = min(1 / compute_cycles, dram_share / dram_bytes)   (fraction of its work per cycle)
// where dram_share is what the DRAM controller grants it. Progress is piecewise linear between
// events (a core finishing, which changes every share); both the event-driven and the clocked
// device evaluate it with the same formula, so they agree to the cycle.
// A core of a stream-then-compute region (a GEMM packing its weights before its kernel runs)
// does the two in turn: it first streams at whatever share it is granted (rate = share / bytes),
// then computes at 1 / compute_cycles, asking no bandwidth.
#include <cstdint>
#include <limits>
#include <vector>

#include "roofline/cpu_roofline.hpp"

namespace sim {

// Columns of W per GEMM work item (shared with the golden GEMM harness and the roofline).
constexpr std::int64_t kCpuColumnBlock = roofline::kCpuColumnBlock;

class CpuCore {
 public:
  CpuCore() = default;
  CpuCore(std::int64_t compute_cycles, double dram_bytes, bool stream_then_compute = false);

  // Bytes per cycle it would stream if bandwidth were free: its bytes spread over its compute
  // time (infinite for a pure stream, 0 for pure compute).
  double demand() const;
  bool streams() const { return dram_bytes_ > 0 && !computing_; }
  bool done() const { return done_; }
  std::int64_t compute_cycles() const { return compute_cycles_; }
  double dram_bytes() const { return dram_bytes_; }

  // Re-anchors progress at cycle `now` and sets the rate for a DRAM share (bytes per cycle).
  void set_share(long long now, double dram_share);
  // Whether its current phase (all its work, or a stream-then-compute core's stream) is done by
  // cycle t (under the current rate).
  bool finished_at(long long t) const;
  // First cycle after the anchor at which its current phase is done (under the current rate).
  long long finish_time() const;
  // Ends the phase finished at cycle t: a stream-then-compute core goes on to compute (unless
  // it has nothing to compute), any other is done. Returns done().
  bool finish_phase(long long t);

 private:
  double progress(long long t) const { return p0_ + double(t - t0_) * rate_; }
  std::int64_t compute_cycles_ = 0;
  double dram_bytes_ = 0;
  double p0_ = 0;      // progress (fraction of its work) at the anchor
  long long t0_ = 0;   // anchor cycle
  double rate_ = 0;    // fraction per cycle since the anchor
  bool stream_first_ = false;  // stream-then-compute: progress is the stream's, then the compute's
  bool computing_ = false;     // stream-then-compute, stream done
  bool done_ = false;
};

// The cores of one region: kernel.items_of_core(c) items each.
std::vector<CpuCore> deal_to_cores(const roofline::CpuKernel& kernel);

}  // namespace sim
