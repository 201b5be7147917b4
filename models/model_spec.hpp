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

  double weight_bytes_per_param() const { return weight_bits / 8.0; }
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
