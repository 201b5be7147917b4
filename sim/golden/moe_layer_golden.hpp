#pragma once
// A MoE decode layer timed by component on a GPU (cuda/moe_layer_kernels.py: router GEMM, top-k
// routing, permute, routed experts, combine, shared expert, and the whole layer, each replayed
// as a CUDA graph so that its device time is measured without the host's), next to the model's
// lowering of the same layer (models::graph_parts::append_moe_mlp_touching) through the GPU
// kernel model. The routed experts' weights are those of the experts the measured point touched
// (its experts_touched column), so a row tests the kernels, not the routing law; the routing law
// is compared apart: the expected distinct experts (models::expected_distinct_experts, uniform or
// Zipf with the exponent the file's header names) against the count each point drew.
#include <functional>
#include <string>
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/model_spec.hpp"

namespace sim {

struct MoeLayerGoldenRow {
  std::string model;
  int tokens = 0;
  std::string routing;       // uniform or zipf
  std::string component;     // router, routing, permute, experts, combine, shared, layer
  std::string experts_impl;  // how the measurement ran the routed experts (grouped_mm, loop)
  int experts_touched = 0;   // distinct experts the point's tokens drew
  double expected_touched = 0;  // the routing law's expectation for the point
  int kernels = 0;           // kernels the model launches for the component
  double measured_s = 0;     // median per call, CUDA-graph replay
  double predicted_s = 0;
  double error_pct() const { return 100.0 * (predicted_s - measured_s) / measured_s; }
};

struct MoeLayerGolden {
  std::vector<MoeLayerGoldenRow> rows;
  double zipf_exponent = 0;  // the measurement's Zipf exponent (its header), 0 without zipf rows
};

// Whether a measured CSV is one of cuda/moe_layer_kernels.py (its header starts
// "date,gpu,torch,model,tokens,routing,component,path").
bool is_moe_layer_csv(const std::string& csv_path);

// The file's graph-replay rows next to the model on `gpu`; `model_of` resolves the model column
// (a config name) to its spec. Errors (one line) name the file, line and field.
MoeLayerGolden compare_moe_layer(const std::string& csv_path, const models::HardwareSpec& gpu,
                                 const std::function<models::ModelSpec(const std::string&)>& model_of);

}  // namespace sim
