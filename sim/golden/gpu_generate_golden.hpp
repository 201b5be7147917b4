#pragma once
// A measured Hugging Face decode loop (cuda/hf_generate_step.py: Transformers' generate, eager,
// per decoded token) next to the GPU SystemC model running one plain-decoding step under a
// software stack: its host thread pays the stack's per-step, per-layer and per-kernel host work
// and launches the stack's extra kernels (per layer and per step); the GPU idles when the host
// is slower.
#include <string>
#include <vector>

#include "models/config_registry.hpp"
#include "models/hardware_spec.hpp"
#include "models/latency_engine.hpp"
#include "models/operator_graph.hpp"
#include "models/software_stack.hpp"
#include "sim/gpu/gpu_kernel_model.hpp"
#include "sim/gpu/gpu_sim_engine.hpp"

namespace sim {

// One step of `graph` on one stream under `stack`, its host work on `host`, simulated event by
// event.
struct StackStepRun {
  long long kernels = 0;     // launches (the graph's kernels and the stack's extra ones)
  double seconds = 0;        // first host work to last kernel's end
  double device_busy_s = 0;  // time a kernel was in flight (the rest: the GPU idled)
};
StackStepRun run_stack_step(const GpuKernelModel& model, const models::SoftwareStack& stack,
                            const models::HostSpec& host, const models::StepGraph& graph);

// One decoded token of a generate loop on `gpu` under `stack`: the engine and kernel model set up
// once, each token simulated as run_stack_step. Both generate-loop goldens (this file's and
// hf_overlap_golden.hpp's) time their rows through it. InputError when `gpu` is not a GPU.
class GenerateTokenTimer {
 public:
  GenerateTokenTimer(const models::HardwareSpec& gpu, const models::SoftwareStack& stack);
  // A token of a loop that decoded `new_tokens` after a prompt of `prompt_tokens`: the timed tokens
  // (the 2nd to the (n + 1)th) see contexts L + 1 .. L + n, and their mean is the step averaged.
  StackStepRun token(const models::Workload& w, long long prompt_tokens, int new_tokens) const;

 private:
  models::SoftwareStack stack_;
  models::HostSpec host_;  // gpu's host
  GpuSimEngine engine_;  // the GPU under the stack: its kernel model times the step
};

// The registry's model `name` for a measured CSV's row (InputError naming the file and line when
// the registry has none): both generate-loop goldens read their rows' models through it.
models::ModelSpec measured_row_model(const models::ConfigRegistry& registry, const std::string& name,
                                     const std::string& csv_path, int line_no);

struct GenerateGoldenRow {
  std::string model, variant;  // variant: generate_greedy, generate_sample, generate_hooks
  int batch = 1;
  long long context = 0;      // prompt tokens
  int new_tokens = 0;         // decoded tokens the time is averaged over
  double measured_kernels = -1;  // per token (-1: not counted)
  long long model_kernels = 0;
  double measured_s = 0;      // per decoded token
  double predicted_s = 0;     // the simulated step at the mean context of the decoded tokens
  double device_busy_s = 0;
  double error_pct() const { return 100.0 * (predicted_s - measured_s) / measured_s; }
  double kernel_error_pct() const { return 100.0 * (double(model_kernels) - measured_kernels) / measured_kernels; }
  double device_idle_s() const { return predicted_s - device_busy_s; }
};

// Whether a measured CSV is a generate-loop CSV (its header starts "model,variant,batch").
bool is_generate_csv(const std::string& csv_path);

// Rows of a CSV "model,variant,batch,context,new_tokens,kernels_per_token,per_token_s" (lines
// starting with '#' are comments) under `stack` on `gpu`. The generate variants are compared;
// forward_loop rows (the forward alone, no generate) and rows that did not run (oom, error) are
// skipped. Errors (one line) name the file and line.
std::vector<GenerateGoldenRow> compare_gpu_generate_loop(const std::string& csv_path, const models::HardwareSpec& gpu,
                                                         const models::SoftwareStack& stack,
                                                         const models::ConfigRegistry& registry);

}  // namespace sim
