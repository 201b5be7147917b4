#pragma once
// Transformer shape of an LLM (configs/models/<name>.yaml).
#include <string>

namespace models {

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

  // Bytes one weight takes in memory: the format's bits (block scales included) when one is
  // set, else weight_bits / 8.
  double weight_bytes_per_param() const;
  // SIMD lane-operations a CPU spends per weight to dequantise it (0 for the native format).
  double dequant_ops_per_weight() const;
  double activation_bytes() const { return activation_bits / 8.0; }
  // Parameters of one decoder layer (projections, MLP, two norm vectors).
  double layer_parameters() const;
  double embedding_parameters() const { return double(vocab_size) * hidden_size; }
  // Total parameters: layers + input embedding + (untied) LM head + final norm.
  double parameters() const;
  // KV-cache bytes one token adds across all layers (K and V).
  double kv_bytes_per_token() const;
};

ModelSpec load_model(const std::string& path);

}  // namespace models
