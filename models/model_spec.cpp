#include "models/model_spec.hpp"

#include <cmath>
#include <string>

#include "models/config_error.hpp"
#include "models/weight_format.hpp"
#include "models/yaml_reader.hpp"

namespace models {

double ModelSpec::weight_bytes_per_param() const {
  if (weight_format.empty()) return weight_bits / 8.0;
  return models::weight_format(weight_format, source_file + ": weight_format").bytes_per_weight();
}

double ModelSpec::dequant_ops_per_weight() const {
  if (weight_format.empty()) return 0;
  return models::weight_format(weight_format, source_file + ": weight_format").dequant_ops_per_weight;
}

double ModelSpec::layer_parameters() const {
  const double d = hidden_size;
  const double q = double(attention_heads) * head_dim;
  const double kv = double(kv_heads) * head_dim;
  const double attention = d * q + 2 * d * kv + q * d;
  const double mlp = (this->mlp == MlpKind::gated ? 3.0 : 2.0) * d * intermediate_size;
  if (!is_moe()) return attention + mlp + 2 * d;
  // MoE layer: router (d x E) + (E routed + shared) gated experts of width moe_intermediate_size.
  const double moe = d * num_experts + 3.0 * d * moe_intermediate_size * (num_experts + shared_experts);
  const double step = moe_layer_step;
  return attention + 2 * d + (moe + (step - 1) * mlp) / step;
}

double ModelSpec::expected_distinct_experts(double tokens) const {
  if (!is_moe()) return 0;
  return models::expected_distinct_experts(num_experts, experts_per_token, tokens);
}

double expected_distinct_experts(int experts, int top_k, double tokens) {
  if (experts < 1 || top_k < 1 || top_k > experts)
    throw InputError("MoE routing: experts_per_token (top-k) must be in 1.." + std::to_string(experts) +
                     " (num_experts), got " + std::to_string(top_k));
  if (!(tokens >= 0)) throw InputError("MoE routing: tokens must be >= 0");
  const double e = experts;
  return e * (1.0 - std::pow(1.0 - double(top_k) / e, tokens));
}

double ModelSpec::parameters() const {
  return layers * layer_parameters() + embedding_parameters() * (tied_embeddings ? 1 : 2) +
         hidden_size;
}

double ModelSpec::kv_bytes_per_token() const {
  return 2.0 * layers * kv_heads * head_dim * activation_bytes();
}

ModelSpec load_model(const std::string& path) {
  const YamlReader r = YamlReader::open(path);
  ModelSpec m;
  m.source_file = path;
  m.name = r.string("name");
  m.layers = int(r.positive_int("layers"));
  m.hidden_size = int(r.positive_int("hidden_size"));
  m.intermediate_size = int(r.positive_int("intermediate_size"));
  m.attention_heads = int(r.positive_int("attention_heads"));
  m.kv_heads = int(r.positive_int("kv_heads"));
  m.head_dim = int(r.positive_int("head_dim"));
  m.vocab_size = int(r.positive_int("vocab_size"));
  m.tied_embeddings = r.boolean("tied_embeddings");
  m.weight_bits = int(r.positive_int("weight_bits"));
  m.activation_bits = int(r.positive_int("activation_bits"));
  m.mlp = r.one_of("mlp", {"gated", "plain"}) == "gated" ? MlpKind::gated : MlpKind::plain;
  // Optional: a quantised storage format (models/weight_format.hpp); absent: native weight_bits.
  if (r.has("weight_format"))
    m.weight_format = models::weight_format(r.string("weight_format"), r.file() + ": " + r.key_path("weight_format")).name;
  // Optional MoE keys (Llama 4 config.json: num_local_experts, num_experts_per_tok,
  // intermediate_size of one expert, interleave_moe_layer_step); absent: a dense model.
  if (r.has("num_experts")) {
    m.num_experts = int(r.positive_int("num_experts"));
    m.experts_per_token = int(r.positive_int("experts_per_token"));
    m.moe_intermediate_size = int(r.positive_int("moe_intermediate_size"));
    m.shared_experts = r.has("shared_experts") ? int(r.non_negative("shared_experts")) : 0;
    m.moe_layer_step = int(r.positive_int_or("moe_layer_step", 1));
    if (m.experts_per_token > m.num_experts)
      r.fail("experts_per_token", "at most num_experts (" + std::to_string(m.num_experts) + ")",
             std::to_string(m.experts_per_token));
    if (m.layers % m.moe_layer_step != 0)
      r.fail("moe_layer_step", "a divisor of layers (" + std::to_string(m.layers) + ")",
             std::to_string(m.moe_layer_step));
    if (m.mlp != MlpKind::gated) r.fail("mlp", "gated (MoE experts are gated MLPs)", "plain");
  }
  if (m.attention_heads % m.kv_heads != 0)
    r.fail("kv_heads", "a divisor of attention_heads (" + std::to_string(m.attention_heads) + ")",
           std::to_string(m.kv_heads));
  for (const char* key : {"weight_bits", "activation_bits"}) {
    const long long bits = r.positive_int(key);
    if (bits != 4 && bits != 8 && bits != 16 && bits != 32)
      r.fail(key, "4, 8, 16 or 32", std::to_string(bits));
  }
  return m;
}

}  // namespace models
