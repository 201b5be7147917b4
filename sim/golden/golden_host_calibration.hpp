#pragma once
// Calibrates a CPU config for this host, so the CPU sim model predicts the golden kernels
// measured here: core count, clock and cache sizes are read from the OS; the streaming
// bandwidth and the per-core FLOP rate are measured with the golden kernels themselves
// (a large GEMV and a large GEMM, shapes outside the golden shape set), and the fork/join cost
// with an empty parallel region.
#include <cstddef>
#include <cstdint>
#include <string>

namespace sim {

class ThreadTeam;

struct HostCalibration {
  int cores = 0;
  int threads = 0;
  double clock_ghz = 0;
  double simd_flops_per_cycle = 0;
  double l2_kib_per_core = 0;
  double l3_mib = 0;
  double bandwidth_gbs = 0;       // measured GEMV streaming rate
  double gemm_stream_gbs = 0;     // packing rate of a GEMM's weights (rows longer than the next)
  std::int64_t gemm_short_rows_max_k = 0;  // Eigen packs rows of up to this many weights whole
  double gemm_short_rows_stream_gbs = 0;   // their packing rate
  double gemm_gflops = 0;         // the GEMM kernel's FLOP rate (packing apart), all threads
  double compute_efficiency = 0;  // gemm_gflops / (threads * simd * clock)
  double attention_gflops = 0;    // measured on the attention probe, all threads
  double attention_compute_efficiency = 0;  // attention_gflops / (threads * simd * clock)
  // A head's query rows after its first (the 16-row probe beside the one-row one), all threads;
  // 0 where the 16-row probe was no slower than 16 first rows would predict (nothing to measure).
  double attention_extra_row_gflops = 0;
  double attention_extra_row_compute_efficiency = 0;
  // Those rows' cost per score beyond their FLOPs (a narrow head's 16-row probe beside the wide
  // one's); 0 where the two do not separate into positive figures.
  double attention_extra_row_score_ns = 0;
  double op_overhead_us = 0;
  std::string cpu_model;          // /proc/cpuinfo "model name"

  std::string to_yaml(const std::string& name) const;
  // One line: cores, threads, clock and the measured figures.
  std::string summary() const;
};

int host_core_count();
// Bytes that evict L2 and L3 (flush buffer for the golden timings).
std::size_t host_cache_flush_bytes();

// Each probe's fastest pass (seconds) over the rounds timed so far.
struct HostProbeTimes {
  double stream_s = 0, pack_s = 0, flop_s = 0, short_rows_s = 0, attention_s = 0, attention_rows_s = 0,
         attention_narrow_rows_s = 0, fork_join_s = 0;
  void keep_fastest(const HostProbeTimes& o);
};

// The probes timed round by round, each figure derived from each probe's fastest pass, as the
// golden keeps each kernel's fastest pass: on a shared machine one slow stretch can halve a
// single round's figures. calibrate_host runs its rounds back to back; `specdse golden --hw
// host` runs one before each of its own rounds, so that the figures and the kernels they
// predict are taken over the same stretch of time (the cold attention probe's rate moved by a
// factor of 1.6 between processes minutes apart on a shared VM: docs/cpu-model.md).
class HostCalibrator {
 public:
  // threads <= 0: all cores.
  HostCalibrator(int threads, int repeats);
  // One round of the probes on `team` (its size the calibration's threads), or on a team of its
  // own when null. A caller whose team is alive passes it: a second team would share the cores
  // with the first's threads, and a team made on a thread the first has pinned finds one CPU.
  void time_round(ThreadTeam* team = nullptr);
  int rounds() const { return rounds_; }
  // The figures from the rounds timed so far (at least one: std::logic_error otherwise).
  HostCalibration result() const;

 private:
  HostCalibration host_;
  int repeats_ = 1;
  int rounds_ = 0;
  HostProbeTimes fastest_;
};

// The figures the CPU model needs, solved from the probes' fastest times on a host whose cores,
// threads, clock and caches `host` gives (HostCalibrator::result; tests feed it times the model
// itself predicts for the probes and get the figures back).
HostCalibration derive_host_figures(HostCalibration host, const HostProbeTimes& fastest);

// threads <= 0: all cores. `rounds` rounds of the probes back to back (HostCalibrator).
HostCalibration calibrate_host(int threads, int repeats, int rounds = 1);

}  // namespace sim
