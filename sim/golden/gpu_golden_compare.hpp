#pragma once
// GPU goldens measured on a lent GPU (cuda/run_goldens.sh) next to the GPU model's predictions:
// single kernels and back-to-back kernel sequences (the kernel CSV) and whole verify steps (the
// step CSV of cuda/torch_decode_step.py).
#include <string>
#include <vector>

#include "models/config_registry.hpp"
#include "models/hardware_spec.hpp"
#include "sim/golden/golden_suite.hpp"

namespace sim {

// Rows of a CSV "kernel,m,n,k,measured_s" (lines starting with '#' are comments), predicted by
// the GPU kernel model of `gpu`. Kernel names and what the model predicts for them:
//   gemm, gemv                       one cuBLAS GEMM timed alone (m x n x k): its kernel plus
//                                    isolated_launch_us
//   tree_attention_h<H>_kv<KV>       cuda_golden.cu's tree attention timed alone (m = tree
//                                    tokens, n = context, k = head_dim): prefix, suffix, merge
//   flash_attention_h<H>_kv<KV>_b<B> FlashAttention-2 timed alone: m queries per sequence of B
//                                    over n cached keys, mask-free (the model's prefix kernel and,
//                                    when it splits the cache, the merge)
//   gemm_graph, gemm_stream          one GEMM's share of a back-to-back sequence (CUDA graph or
//                                    plain stream): the kernel as a step runs it
//   rmsnorm, rmsnorm_graph,          an RMSNorm of m rows of n (k unused), alone or in a
//   rmsnorm_stream                   sequence: an element-wise kernel
// Errors (one line) name the file and line.
std::vector<GoldenRow> compare_gpu_measurements(const std::string& csv_path, const models::HardwareSpec& gpu);

// One measured verify step next to the GPU SystemC model's T_v with the bare stack (a CUDA-graph
// replay has no host work between kernels).
struct StepGoldenRow {
  std::string model;
  int batch = 1, x = 1;
  long long context = 0;
  long long measured_kernels = -1;  // -1: not counted
  long long model_kernels = 0;      // kernels the model launches for the same step
  double graph_s = 0, eager_s = 0;  // measured: CUDA-graph replay, eager launches
  double predicted_s = 0;
  // The prediction with the measured implementation's kernel count: each kernel it launches
  // beyond the model's costs GpuSpec::kernel_overhead_us (an unfused step launches many small
  // element-wise kernels that a tuned stack fuses). A diagnostic of where a gap comes from, not
  // a model output. Equal to predicted_s when the kernels were not counted.
  double predicted_same_kernels_s = 0;
  double error_pct() const { return 100.0 * (predicted_s - graph_s) / graph_s; }
  double same_kernels_error_pct() const { return 100.0 * (predicted_same_kernels_s - graph_s) / graph_s; }
};

// Rows of a CSV "model,batch,x,context,kernels,graph_s,eager_s" (cuda/torch_decode_step.py);
// rows whose times are "oom" (the point did not fit the GPU) are skipped.
std::vector<StepGoldenRow> compare_gpu_steps(const std::string& csv_path, const models::HardwareSpec& gpu,
                                             const models::ConfigRegistry& registry);

// One measured eager step (eager_s: launched kernel by kernel from Python) next to the GPU
// SystemC model running the same step under a software stack: its host thread pays the stack's
// per-layer and per-kernel dispatch and launches the stack's extra kernels, the GPU idles when
// the host is slower. The measured loop times one forward (cuda/torch_decode_step.py: no input
// preparation, logits processing or sampling), so the stack's per-step host work and per-step
// kernels are left out.
struct EagerStepGoldenRow {
  std::string model;
  int batch = 1, x = 1;
  long long context = 0;
  long long measured_kernels = -1;  // -1: not counted
  long long model_kernels = 0;      // kernels the stack launches for the step
  double graph_s = 0, eager_s = 0;  // measured
  double predicted_s = 0;           // the simulated eager step
  double device_busy_s = 0;         // time the simulated GPU had a kernel in flight (the rest: idle)
  double error_pct() const { return 100.0 * (predicted_s - eager_s) / eager_s; }
  double kernel_error_pct() const { return 100.0 * double(model_kernels - measured_kernels) / double(measured_kernels); }
  double device_idle_s() const { return predicted_s - device_busy_s; }
};

// Rows of a step CSV (as compare_gpu_steps reads it) under `stack` on `gpu`.
std::vector<EagerStepGoldenRow> compare_gpu_eager_steps(const std::string& csv_path, const models::HardwareSpec& gpu,
                                                        const models::SoftwareStack& stack,
                                                        const models::ConfigRegistry& registry);

// Whether a measured CSV is a step CSV (its header starts "model,batch,x").
bool is_step_csv(const std::string& csv_path);

// Two verify steps on two CUDA streams of one GPU (cuda/torch_decode_step.py --contention): each
// stream alone and both at once, measured and predicted (sim::run_gpu_streams, bare stack).
struct ContentionGoldenRow {
  std::string stream, model;
  int batch = 1, x = 1;
  long long context = 0;
  double alone_s = 0, together_s = 0;                      // measured
  double predicted_alone_s = 0, predicted_together_s = 0;  // the GPU SystemC model
  double slowdown() const { return together_s / alone_s; }
  double predicted_slowdown() const { return predicted_together_s / predicted_alone_s; }
};

// Rows of a CSV "stream,model,batch,x,context,alone_s,together_s": consecutive rows with the
// same batch, x and context are the streams of one run (two or more).
std::vector<ContentionGoldenRow> compare_gpu_contention(const std::string& csv_path, const models::HardwareSpec& gpu,
                                                        const models::ConfigRegistry& registry);

// Whether a measured CSV is a contention CSV (its header starts "stream,model").
bool is_contention_csv(const std::string& csv_path);

}  // namespace sim
