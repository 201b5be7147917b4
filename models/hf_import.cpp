#include "models/hf_import.hpp"
#include "models/yaml_text.hpp"
#include "models/input_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <filesystem>

#include "models/config_error.hpp"

namespace models {

namespace {

class JsonConfig {
 public:
  JsonConfig(YAML::Node node, std::string file, std::string prefix)
      : node_(std::move(node)), file_(std::move(file)), prefix_(std::move(prefix)) {}

  bool has(const std::string& key) const { return node_[key] && !node_[key].IsNull(); }

  long long integer(const std::string& key) const {
    if (!has(key)) fail(key, "an integer", "nothing (missing key)");
    const auto& v = node_[key];
    long long out = 0;
    if (!v.IsScalar() || !YAML::convert<long long>::decode(v, out)) fail(key, "an integer", scalar_text(v));
    if (out <= 0 || out > INT_MAX) fail(key, fmt::format("an integer in 1..{}", INT_MAX), scalar_text(v));
    return out;
  }
  long long integer_or(const std::string& key, long long fallback) const { return has(key) ? integer(key) : fallback; }

  bool boolean_or(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    bool out = false;
    if (!node_[key].IsScalar() || !YAML::convert<bool>::decode(node_[key], out))
      fail(key, "true or false", scalar_text(node_[key]));
    return out;
  }

  std::string string_or(const std::string& key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!node_[key].IsScalar()) fail(key, "a string", "a list or map");
    return node_[key].as<std::string>();
  }

  [[noreturn]] void fail(const std::string& key, const std::string& expected, const std::string& got) const {
    throw InputError(fmt::format("{}: {}{}: expected {}, got {}", file_, prefix_, key, expected, got));
  }

 private:
  static std::string scalar_text(const YAML::Node& v) {
    return v.IsScalar() ? "'" + v.Scalar() + "'" : "a list or map";
  }
  YAML::Node node_;
  std::string file_, prefix_;
};

int bits_of_dtype(const std::string& dtype) {
  if (dtype == "float32") return 32;
  if (dtype == "float16" || dtype == "bfloat16") return 16;
  return 0;
}

// A key given twice anywhere in the file: yaml-cpp's lookups see the first value, Python's json
// (Hugging Face's loader) keeps the last, so either reading would be a guess.
void refuse_repeated_keys(const YAML::Node& node, const std::string& path, const std::string& prefix) {
  if (node.IsMap()) {
    std::vector<std::string> seen;
    for (const auto& kv : node) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string("(key)");
      if (std::find(seen.begin(), seen.end(), key) != seen.end())
        throw InputError(fmt::format("{}: {}{}: key given twice (Hugging Face's loader keeps the last value, a YAML "
                                     "reader the first): give it once",
                                     path, prefix, key));
      seen.push_back(key);
      refuse_repeated_keys(kv.second, path, prefix + key + ".");
    }
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      refuse_repeated_keys(node[i], path, fmt::format("{}[{}].", prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1), i));
  }
}

}  // namespace

HfImport import_hf_config(const std::string& path, const std::string& name) {
  std::ifstream in = open_input_file(path, "config.json");
  YAML::Node root;
  try {
    root = YAML::Load(in);
  } catch (const YAML::BadFile&) {
    throw InputError(fmt::format("{}: cannot open config.json", path));
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}: not valid JSON: {}", path, e.mark.line + 1, e.msg));
  }
  if (!root.IsMap()) throw InputError(fmt::format("{}: expected a JSON object (a Hugging Face config.json)", path));
  refuse_repeated_keys(root, path, "");
  HfImport out;
  const JsonConfig top(root, path, "");
  // Llama 4 (and other multimodal configs) keep the language model under text_config.
  const bool nested = root["text_config"] && root["text_config"].IsMap();
  const JsonConfig c = nested ? JsonConfig(root["text_config"], path, "text_config.") : top;
  if (nested) out.notes.push_back("text model from text_config");
  out.model_type = c.string_or("model_type", top.string_or("model_type", "unknown"));

  for (const char* unsupported : {"kv_lora_rank", "q_lora_rank"})
    if (c.has(unsupported))
      c.fail(unsupported, "no MLA (multi-head latent attention) key: specdse models GQA/MHA attention",
             "a value");
  if (c.has("ffn_dim") || c.has("word_embed_proj_dim"))
    c.fail("ffn_dim", "Llama/Mistral/Qwen keys (OPT configs are not imported; see configs/models/opt-*.yaml)",
           "an OPT config");

  ModelSpec& m = out.model;
  std::string model_name = name;
  if (model_name.empty()) {
    std::string id = top.string_or("_name_or_path", "");
    if (!id.empty() && id.back() == '/') id.pop_back();
    id = id.substr(id.find_last_of('/') == std::string::npos ? 0 : id.find_last_of('/') + 1);
    if (id.empty())
      throw InputError(fmt::format("{}: no _name_or_path to name the model; give --name", path));
    model_name = id;
    std::transform(model_name.begin(), model_name.end(), model_name.begin(),
                   [](unsigned char ch) { return char(std::tolower(ch)); });
  }
  m.name = model_name;
  m.layers = int(c.integer("num_hidden_layers"));
  m.hidden_size = int(c.integer("hidden_size"));
  m.attention_heads = int(c.integer("num_attention_heads"));
  // HF's Llama/Mistral/Qwen configs: num_key_value_heads defaults to num_attention_heads (MHA),
  // head_dim to hidden_size / num_attention_heads.
  m.kv_heads = int(c.integer_or("num_key_value_heads", m.attention_heads));
  if (!c.has("num_key_value_heads")) out.notes.push_back("kv_heads = num_attention_heads (no num_key_value_heads)");
  if (c.has("head_dim")) {
    m.head_dim = int(c.integer("head_dim"));
  } else {
    if (m.hidden_size % m.attention_heads != 0)
      c.fail("head_dim", "a key (hidden_size is not a multiple of num_attention_heads)", "nothing");
    m.head_dim = m.hidden_size / m.attention_heads;
    out.notes.push_back("head_dim = hidden_size / num_attention_heads");
  }
  m.vocab_size = int(c.has("vocab_size") ? c.integer("vocab_size") : top.integer("vocab_size"));
  // Llama/Mistral/Qwen leave the LM head untied unless the file says otherwise (their
  // configuration classes default to false; e.g. Qwen2.5-0.5B sets true).
  m.tied_embeddings = c.has("tie_word_embeddings") ? c.boolean_or("tie_word_embeddings", false)
                                                    : top.boolean_or("tie_word_embeddings", false);
  m.mlp = MlpKind::gated;  // SwiGLU in every family imported here
  const std::string dtype = c.string_or("torch_dtype", top.string_or("torch_dtype", "bfloat16"));
  m.weight_bits = bits_of_dtype(dtype);
  if (m.weight_bits == 0) c.fail("torch_dtype", "float32, float16 or bfloat16", "'" + dtype + "'");
  m.activation_bits = 16;
  if (!c.has("torch_dtype") && !top.has("torch_dtype")) out.notes.push_back("16-bit weights (no torch_dtype)");

  // Experts: Mixtral / Llama 4 call them num_local_experts, Qwen2/3-MoE num_experts.
  const std::string experts_key = c.has("num_local_experts") ? "num_local_experts" : "num_experts";
  if (c.has(experts_key) && c.integer(experts_key) > 1) {
    m.num_experts = int(c.integer(experts_key));
    m.experts_per_token = int(c.integer("num_experts_per_tok"));
    if (m.experts_per_token > m.num_experts)
      c.fail("num_experts_per_tok", fmt::format("at most {} ({})", m.num_experts, experts_key),
             std::to_string(m.experts_per_token));
    if (c.has("intermediate_size_mlp")) {
      // Llama 4: intermediate_size is one expert's width, intermediate_size_mlp the dense MLP's;
      // every MoE layer has one shared expert (Llama4TextMoe.shared_expert).
      m.moe_intermediate_size = int(c.integer("intermediate_size"));
      m.intermediate_size = int(c.integer("intermediate_size_mlp"));
      m.shared_experts = 1;
      m.moe_layer_step = int(c.integer_or("interleave_moe_layer_step", 1));
      out.notes.push_back("Llama 4: experts of intermediate_size, dense MLP of intermediate_size_mlp, one shared expert");
    } else if (c.has("moe_intermediate_size")) {
      // Qwen2/3-MoE: experts of moe_intermediate_size, dense layers of intermediate_size.
      m.moe_intermediate_size = int(c.integer("moe_intermediate_size"));
      m.intermediate_size = int(c.integer("intermediate_size"));
      m.moe_layer_step = int(c.integer_or("decoder_sparse_step", 1));
      // Qwen2/3-MoE's mlp_only_layers turns listed layers back into dense MLPs, a layout
      // specdse's every-step-th-layer MoE cannot hold: refused, not imported as something else.
      if (c.has("mlp_only_layers")) {
        const YAML::Node dense = (nested ? root["text_config"] : root)["mlp_only_layers"];
        if (!dense.IsSequence())
          c.fail("mlp_only_layers", "a list of layer indices", "a value that is not a list");
        if (dense.size() > 0)
          c.fail("mlp_only_layers",
                 fmt::format("an empty list (specdse places experts in every {}-th layer; dense layers listed "
                             "apart are not modelled)",
                             m.moe_layer_step),
                 fmt::format("{} listed layer(s)", dense.size()));
      }
      if (c.has("shared_expert_intermediate_size")) {
        const long long shared = c.integer("shared_expert_intermediate_size");
        if (shared % m.moe_intermediate_size != 0)
          c.fail("shared_expert_intermediate_size", fmt::format("a multiple of moe_intermediate_size ({})",
                                                                m.moe_intermediate_size),
                 std::to_string(shared));
        m.shared_experts = int(shared / m.moe_intermediate_size);
        out.notes.push_back("shared experts = shared_expert_intermediate_size / moe_intermediate_size");
      }
    } else {
      // Mixtral: every layer is MoE with experts of intermediate_size; no dense MLP.
      m.moe_intermediate_size = int(c.integer("intermediate_size"));
      m.intermediate_size = m.moe_intermediate_size;
      out.notes.push_back("Mixtral-style: every layer MoE, experts of intermediate_size");
    }
    if (m.layers % m.moe_layer_step != 0)
      c.fail(c.has("decoder_sparse_step") ? "decoder_sparse_step" : "interleave_moe_layer_step",
             fmt::format("a divisor of num_hidden_layers ({})", m.layers), std::to_string(m.moe_layer_step));
  } else {
    m.intermediate_size = int(c.integer("intermediate_size"));
  }
  if (m.attention_heads % m.kv_heads != 0)
    c.fail("num_key_value_heads", fmt::format("a divisor of num_attention_heads ({})", m.attention_heads),
           std::to_string(m.kv_heads));
  // Attention the model does not run over the whole context: not modelled, and said so (the
  // header notes and `import-model`'s message), never dropped silently.
  for (const char* windowed : {"sliding_window", "attention_chunk_size"})
    if (c.has(windowed))
      out.ignored.push_back(fmt::format("{} {} not modelled: attention is costed over the whole context (an upper "
                                        "bound on its time and KV cache past that many tokens)",
                                        windowed, c.integer(windowed)));
  for (const auto& i : out.ignored) out.notes.push_back(i);
  return out;
}

std::string to_model_yaml(const HfImport& im, const std::string& source_label) {
  const ModelSpec& m = im.model;
  std::string y = fmt::format("# {}: shape imported by `specdse import-model` from {} (model_type {}).\n",
                              yaml_comment_text(m.name), yaml_comment_text(source_label), yaml_comment_text(im.model_type));
  for (const auto& n : im.notes) y += "# " + yaml_comment_text(n) + ".\n";
  y += fmt::format("name: {}\nlayers: {}\nhidden_size: {}\nintermediate_size: {}\nattention_heads: {}\n"
                   "kv_heads: {}\nhead_dim: {}\nvocab_size: {}\ntied_embeddings: {}\nmlp: {}\n"
                   "weight_bits: {}\nactivation_bits: {}\n",
                   yaml_quoted(m.name), m.layers, m.hidden_size, m.intermediate_size, m.attention_heads, m.kv_heads,
                   m.head_dim, m.vocab_size, m.tied_embeddings ? "true" : "false",
                   m.mlp == MlpKind::gated ? "gated" : "plain", m.weight_bits, m.activation_bits);
  if (m.is_moe())
    y += fmt::format("num_experts: {}\nexperts_per_token: {}\nshared_experts: {}\nmoe_intermediate_size: {}\n"
                     "moe_layer_step: {}\n",
                     m.num_experts, m.experts_per_token, m.shared_experts, m.moe_intermediate_size,
                     m.moe_layer_step);
  return y;
}

}  // namespace models
