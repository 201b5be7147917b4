#include "models/model_spec.hpp"

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
  return attention + mlp + 2 * d;
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
