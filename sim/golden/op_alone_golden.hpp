#pragma once
// Operators timed alone from PyTorch, LLMCompass's way (each call wrapped in a wall clock and a
// torch.cuda.synchronize(), the median kept: cuda/op_by_op_layer.py here, and the A100 figures
// LLMCompass publishes, configs/reference/llmcompass_a100_gpt3_ops.csv), next to the GPU kernel
// model. A call timed that way costs its kernels plus the harness: the Python op call, the launch
// and the synchronisation's round trip, which the model does not know per host. It is measured on
// the same file: per harness class, the measured time of the calibration ("alone") op whose
// kernels the model finds shortest, less those kernels. Every other row is a prediction: count x
// (kernels + harness). All-reduce rows are costed as NCCL runs them on a system (its ring over the
// system's links, sim::add_all_reduce), without a harness term.
#include <map>
#include <string>
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/system_spec.hpp"

namespace sim {

struct OpAloneGoldenRow {
  std::string set;    // "alone" (calibration sweeps) or the layer's phase ("decode", "prefill", ...)
  std::string op;     // e.g. qkv, w1, gemm_m64_n12288_k12288
  std::string kind;   // gemm, bmm, softmax, layernorm, gelu, allreduce
  long long m = 0, n = 0, k = 0, batch = 1;
  int count = 1;      // calls of the op in the layer (measured_s covers all of them)
  double measured_s = 0;
  double kernel_s = 0;     // the kernel model's time for one call (all-reduce: the collective's)
  double harness_s = 0;    // the harness class's per-call cost (0 for all-reduce)
  double predicted_s = 0;  // count x (kernel_s + harness_s)
  bool calibration = false;  // the row a harness class was measured on (not a prediction)
  double error_pct() const { return 100.0 * (predicted_s - measured_s) / measured_s; }
};

// What a harness class costs per call beyond its kernels, and the op it was measured on.
struct HarnessCost {
  double seconds_per_call = 0;
  std::string op;
};

// A set's rows summed (a layer phase: its ops' measured and predicted times).
struct SetTotal {
  int rows = 0;
  double measured_s = 0, predicted_s = 0;
  double error_pct() const { return 100.0 * (predicted_s - measured_s) / measured_s; }
};

struct OpAloneGolden {
  std::vector<OpAloneGoldenRow> rows;
  // Per harness class (matmul: gemm and bmm; softmax; layernorm; gelu). A class without an
  // "alone" row is absent and costs 0.
  std::map<std::string, HarnessCost> harness;
  int skipped_all_reduces = 0;  // all-reduce rows left out: no system given
  // The rows of `set` summed, its all-reduce rows included or not.
  SetTotal set_total(const std::string& set, bool with_all_reduce = true) const;
};

// Whether a measured CSV is an ops-timed-alone CSV (its header starts "set,op,kind").
bool is_op_alone_csv(const std::string& csv_path);

// Rows of a CSV "set,op,kind,m,n,k,batch,count,measured_s" on `gpu`; all-reduce rows over ranks
// 0 .. k-1 of `system` (nullptr: those rows are skipped and counted). Errors (one line) name the
// file and line.
OpAloneGolden compare_ops_timed_alone(const std::string& csv_path, const models::HardwareSpec& gpu,
                                      const models::SystemSpec* system);

}  // namespace sim
