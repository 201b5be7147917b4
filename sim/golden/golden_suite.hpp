#pragma once
// The golden comparison: real kernels at the shapes the models produce, measured on this host
// (or, for GPUs, read from a CSV the CUDA golden binary printed on the device), next to the
// sim model's prediction for the same shape.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/model_spec.hpp"
#include "models/operator_graph.hpp"

namespace sim {

struct GoldenShape {
  std::string kernel;  // gemm | gemv | decode_attention | tree_attention
  std::string source;  // e.g. "llama-68m qkv_proj"
  std::int64_t m = 0, n = 0, k = 0;
  // Attention only: heads, KV heads (m = queries, n = cached keys, k = head_dim).
  std::int64_t heads = 0, kv_heads = 0;
};

struct GoldenRow {
  GoldenShape shape;
  double measured_s = 0;        // minimum over repeats
  double measured_median_s = 0;
  double predicted_s = 0;
  double error_pct() const { return 100.0 * (predicted_s - measured_s) / measured_s; }
};

// GEMM (m > 1) and GEMV (m = 1) shapes of one decoder layer's projections of each model.
std::vector<GoldenShape> projection_shapes(const std::vector<models::ModelSpec>& models,
                                           const std::vector<std::int64_t>& tokens);
// Decode (x = 1) and tree attention shapes of a model's heads at the given contexts.
std::vector<GoldenShape> attention_shapes(const models::ModelSpec& model, const std::vector<std::int64_t>& contexts,
                                          int tree_tokens);

// An FP32 operator-graph op for a golden GEMM/GEMV (the host kernels run in FP32).
models::Op golden_gemm_op(std::int64_t m, std::int64_t n, std::int64_t k, double element_bytes);
// Attention ops (QK, softmax, PV) for a golden attention shape.
std::vector<models::Op> golden_attention_ops(const GoldenShape& s, double element_bytes);

class ThreadTeam;

struct CpuGoldenOptions {
  int threads = 1;
  int warmup = 1;
  int repeats = 5;
  std::size_t flush_bytes = 0;  // 0: no cache flush between runs
  // The shape set is timed this many times over, one shape after another in each round, and
  // each shape keeps the minimum over all its runs: a burst of load from other processes on a
  // shared machine then spoils one round of a shape, not all of its runs.
  int rounds = 1;
  std::uint64_t seed = 1;
  // Called after each round (1-based) with the number of rounds: progress for a caller that
  // shows it (a round of the default shape set takes tens of seconds).
  std::function<void(int round, int rounds)> on_round_done;
  // Called before each round (1-based) with the team that times the kernels: the in-run host
  // calibration times a round of its probes there, on the same threads, so that its figures come
  // from the same stretch of time as the kernels' (HostCalibrator).
  std::function<void(int round, ThreadTeam& team)> before_round;
};

class CacheFlusher;
// What runs before each timed kernel (the golden's and calibrate-host's probes): evict the caches
// (null flusher: --no-flush), then wake the team, so the kernel finds cold caches and awake
// threads, as an op of a decode loop over a model larger than the caches does.
std::function<void()> before_each_kernel(CacheFlusher* flusher, ThreadTeam& team);

// Runs each shape on the host: the rows' measured times (predicted_s left 0).
std::vector<GoldenRow> time_cpu_golden(const std::vector<GoldenShape>& shapes, const CpuGoldenOptions& options);
// Fills each row's predicted_s with the CPU sim model of `cpu`.
void predict_cpu_golden(std::vector<GoldenRow>& rows, const models::HardwareSpec& cpu);
// Both: runs each shape on the host and predicts it with the CPU sim model of `cpu`.
std::vector<GoldenRow> run_cpu_golden(const std::vector<GoldenShape>& shapes, const models::HardwareSpec& cpu,
                                      const CpuGoldenOptions& options);

// GPU measurements: sim/golden/gpu_golden_compare.hpp.

// Median of the absolute values (NaN when there are none).
double median_abs(std::vector<double> values);
// Median of |error_pct| over rows whose kernel is in `kernels` (NaN when none).
double median_abs_error_pct(const std::vector<GoldenRow>& rows, const std::vector<std::string>& kernels);

}  // namespace sim
