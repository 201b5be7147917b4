#pragma once
// Transformer shape of an LLM (configs/models/<name>.yaml).
#include <string>

#include "models/expert_routing.hpp"

namespace models {

class YamlReader;  // models/yaml_reader.hpp

enum class MlpKind { gated, plain };  // gated: SwiGLU gate/up/down; plain: fc1/fc2 (OPT, BLOOM)

struct ModelSpec {
  std::string name;
  std::string source_file;
  int layers = 0;
  int hidden_size = 0;
  int intermediate_size = 0;
  int attention_heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int vocab_size = 0;
  bool tied_embeddings = false;
  int weight_bits = 16;
  int activation_bits = 16;
  MlpKind mlp = MlpKind::gated;
  // Storage format of the weights (models/weight_format.hpp), e.g. "q5_k_m"; empty: the native
  // `weight_bits`, used as stored (no dequantisation charged).
  std::string weight_format;
  // Mixture-of-experts MLPs (Llama 4; optional keys, all absent for a dense model). A MoE layer's
  // MLP is a router (hidden x num_experts), `shared_experts` always-on experts and
  // `experts_per_token` (top-k) of `num_experts` routed experts, each a gated MLP of width
  // `moe_intermediate_size`. Every `moe_layer_step`-th layer is MoE (HF
  // interleave_moe_layer_step; 1: all layers), the others keep the dense `intermediate_size`.
  int num_experts = 0;           // 0: dense model
  int experts_per_token = 0;     // top-k
  int shared_experts = 0;
  int moe_intermediate_size = 0;
  int moe_layer_step = 1;
  // How the router spreads tokens over the routed experts (models/expert_routing.hpp; optional
  // key expert_routing_zipf_exponent, absent: uniform).
  ExpertRouting expert_routing;
  bool is_moe() const { return num_experts > 0; }
  int moe_layers() const { return is_moe() ? layers / moe_layer_step : 0; }

  // Bytes one weight takes in memory: the format's bits (block scales included) when one is
  // set, else weight_bits / 8.
  double weight_bytes_per_param() const;
  // SIMD lane-operations a CPU spends per weight to dequantise it (0 for the native format).
  double dequant_ops_per_weight() const;
  double activation_bytes() const { return activation_bits / 8.0; }
  // Parameters of one decoder layer (projections, MLP, two norm vectors); for a MoE model the
  // mean over the repeating unit of moe_layer_step layers (all experts counted).
  double layer_parameters() const;
  // Expected distinct routed experts `tokens` tokens touch in one MoE layer under the model's
  // routing law (models::expected_distinct_experts); 0 for a dense model.
  double expected_distinct_experts(double tokens) const;
  double embedding_parameters() const { return double(vocab_size) * hidden_size; }
  // Total parameters: layers + input embedding + (untied) LM head + final norm.
  double parameters() const;
  // KV-cache bytes one token adds across all layers (K and V).
  double kv_bytes_per_token() const;
};

ModelSpec load_model(const std::string& path);
// The same from a document in memory (source_file: the reader's file name).
ModelSpec load_model(const YamlReader& config);

}  // namespace models
