#pragma once
// The host/device overlap experiment (cuda/hf_host_device_overlap.py): Hugging Face generate on
// narrow models, whose kernels are too small to matter so that a token's wall time is the host
// program's, and on published-width models of the same layer counts, whose kernels' device time
// the profiler sums. Each row next to the GPU SystemC model's step under a software stack; each
// wide row paired with the narrow row of its layer count, batch and context, so the measured
// token can be read against host + device (the host waits for every token's kernels before it
// starts the next token's work) and max(host, device) (launches run ahead).
#include <string>
#include <vector>

#include "models/config_registry.hpp"
#include "models/hardware_spec.hpp"
#include "models/model_spec.hpp"
#include "models/software_stack.hpp"

namespace sim {

struct OverlapGoldenRow {
  std::string model;
  bool narrow = false;           // the harness's host-bound shape (narrow_probe_model)
  int layers = 0, batch = 1;
  long long context = 0;         // prompt tokens
  int new_tokens = 0;
  double measured_kernels = -1;  // per token (-1: not counted)
  double measured_busy_s = -1;   // kernels' device time per token (-1: not measured)
  double measured_s = 0;         // wall time per decoded token
  long long model_kernels = 0;
  double predicted_s = 0, predicted_busy_s = 0;
  double error_pct() const { return 100.0 * (predicted_s - measured_s) / measured_s; }
};

// A wide row beside the narrow row of its layers, batch and context: host_s is the narrow
// model's token, device_s the wide model's kernels.
struct OverlapPair {
  OverlapGoldenRow wide, narrow;
  double host_s() const { return narrow.measured_s; }
  double device_s() const { return wide.measured_busy_s; }
  double serial_s() const { return host_s() + device_s(); }
  double overlapped_s() const { return host_s() > device_s() ? host_s() : device_s(); }
};

// The harness's narrow shape at `layers` decoder layers: hidden 256, 4 query heads of 64, one KV
// head, FFN 512, Llama-3's vocabulary (cuda/hf_host_device_overlap.py's narrow()).
models::ModelSpec narrow_probe_model(int layers);

// Whether a measured CSV is an overlap CSV (its header starts "model,width,layers").
bool is_overlap_csv(const std::string& csv_path);

// Rows of a CSV "model,width,layers,hidden,batch,context,new_tokens,kernels_per_token,
// device_busy_per_token_s,sync_wait_per_token_s,per_token_s" ('#' lines are comments) under
// `stack` on `gpu`; rows that did not run (oom, error) are skipped. Wide models by name from the
// registry, narrow ones from narrow_probe_model. Errors (one line) name the file and line.
std::vector<OverlapGoldenRow> compare_gpu_host_device_overlap(const std::string& csv_path,
                                                              const models::HardwareSpec& gpu,
                                                              const models::SoftwareStack& stack,
                                                              const models::ConfigRegistry& registry);

// The narrow row of `wide`'s layers, batch and context in `rows` (the first), or null; null too
// for a narrow row or a wide row without its kernels' device time.
const OverlapGoldenRow* narrow_twin(const std::vector<OverlapGoldenRow>& rows, const OverlapGoldenRow& wide);

// Every wide row with a narrow twin, in file order.
std::vector<OverlapPair> overlap_pairs(const std::vector<OverlapGoldenRow>& rows);

}  // namespace sim
