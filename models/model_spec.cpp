#include "models/model_spec.hpp"

#include <fmt/format.h>

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
  return models::expected_distinct_experts(num_experts, experts_per_token, tokens, expert_routing);
}

double ModelSpec::parameters() const {
  return layers * layer_parameters() + embedding_parameters() * (tied_embeddings ? 1 : 2) +
         hidden_size;
}

double ModelSpec::kv_bytes_per_token() const {
  return 2.0 * layers * kv_heads * head_dim * activation_bytes();
}

namespace {

// Upper bounds of a model's sizes: far above every published LLM (Llama 3.1 405B: 126 layers,
// hidden 16384, MLP 53248, 128 heads of 128; Gemma 3: vocabulary 262144; Llama 4 Maverick: 128
// experts) so that any real or hypothetical model loads, and low enough that sizes, their products
// in int64 and the counts stored in int cannot overflow. A value above them is a typo or a unit
// mistake, reported instead of wrapped (layers 2^32 + 32 used to load as 32).
constexpr long long kMaxLayers = 1 << 16;
constexpr long long kMaxWidth = 1 << 22;  // hidden, MLP and expert widths
constexpr long long kMaxHeads = 1 << 16;
constexpr long long kMaxHeadDim = 1 << 16;
constexpr long long kMaxVocabulary = 1 << 26;
constexpr long long kMaxExperts = 1 << 16;

}  // namespace

ModelSpec load_model(const std::string& path) { return load_model(YamlReader::open(path)); }

ModelSpec load_model(const YamlReader& r) {
  r.allow_only({"name", "description", "layers", "hidden_size", "intermediate_size", "attention_heads", "kv_heads",
                "head_dim", "vocab_size", "tied_embeddings", "weight_bits", "activation_bits", "mlp", "weight_format",
                "num_experts", "experts_per_token", "moe_intermediate_size", "shared_experts", "moe_layer_step",
                "expert_routing_zipf_exponent"});
  ModelSpec m;
  m.source_file = r.file();
  m.name = r.string("name");
  m.layers = r.int_in("layers", 1, kMaxLayers);
  m.hidden_size = r.int_in("hidden_size", 1, kMaxWidth);
  m.intermediate_size = r.int_in("intermediate_size", 1, kMaxWidth);
  m.attention_heads = r.int_in("attention_heads", 1, kMaxHeads);
  m.kv_heads = r.int_in("kv_heads", 1, kMaxHeads);
  m.head_dim = r.int_in("head_dim", 1, kMaxHeadDim);
  m.vocab_size = r.int_in("vocab_size", 1, kMaxVocabulary);
  m.tied_embeddings = r.boolean("tied_embeddings");
  m.weight_bits = r.int_in("weight_bits", 1, 32);
  m.activation_bits = r.int_in("activation_bits", 1, 32);
  m.mlp = r.one_of("mlp", {"gated", "plain"}) == "gated" ? MlpKind::gated : MlpKind::plain;
  // Optional: a quantised storage format (models/weight_format.hpp); absent: native weight_bits.
  if (r.has("weight_format"))
    m.weight_format = models::weight_format(r.string("weight_format"), r.file() + ": " + r.key_path("weight_format")).name;
  // Optional MoE keys (Llama 4 config.json: num_local_experts, num_experts_per_tok,
  // intermediate_size of one expert, interleave_moe_layer_step); absent: a dense model.
  if (r.has("num_experts")) {
    m.num_experts = r.int_in("num_experts", 1, kMaxExperts);
    m.experts_per_token = r.int_in("experts_per_token", 1, kMaxExperts);
    m.moe_intermediate_size = r.int_in("moe_intermediate_size", 1, kMaxWidth);
    m.shared_experts = r.int_in_or("shared_experts", 0, kMaxExperts, 0);
    m.moe_layer_step = r.int_in_or("moe_layer_step", 1, kMaxLayers, 1);
    if (r.has("expert_routing_zipf_exponent")) {
      const double s = r.non_negative("expert_routing_zipf_exponent");
      if (s > kMaxRoutingZipfExponent)
        r.fail("expert_routing_zipf_exponent", fmt::format("a Zipf exponent in [0, {}] (0: uniform)", kMaxRoutingZipfExponent),
               fmt::format("{}", s));
      m.expert_routing.zipf_exponent = s;
    }
    if (m.experts_per_token > m.num_experts)
      r.fail("experts_per_token", "at most num_experts (" + std::to_string(m.num_experts) + ")",
             std::to_string(m.experts_per_token));
    if (m.layers % m.moe_layer_step != 0)
      r.fail("moe_layer_step", "a divisor of layers (" + std::to_string(m.layers) + ")",
             std::to_string(m.moe_layer_step));
    if (m.mlp != MlpKind::gated) r.fail("mlp", "gated (MoE experts are gated MLPs)", "plain");
  } else {
    for (const char* key :
         {"experts_per_token", "moe_intermediate_size", "shared_experts", "moe_layer_step", "expert_routing_zipf_exponent"})
      if (r.has(key)) r.fail(key, "num_experts with it (MoE keys of a dense model)", "no num_experts");
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
