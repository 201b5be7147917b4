#include "models/software_stack.hpp"

#include <filesystem>

#include "models/config_error.hpp"

#include "models/config_registry.hpp"
#include "models/yaml_reader.hpp"

namespace models {

std::string to_string(StackTensor t) {
  switch (t) {
    case StackTensor::hidden: return "hidden";
    case StackTensor::q: return "q";
    case StackTensor::kv: return "kv";
    case StackTensor::ffn: return "ffn";
    case StackTensor::vocab: return "vocab";
    case StackTensor::attention_mask: return "attention_mask";
    case StackTensor::kv_cache: return "kv_cache";
    case StackTensor::kv_cache_heads: return "kv_cache_heads";
    case StackTensor::attention_scores: return "attention_scores";
  }
  return "?";
}

namespace {

// `extra_kernels.<key>`: a list of {name, kernels, tensor, passes, masked_attention_only,
// min_hidden_size, grouped_kv_only}; names unique within the stack.
std::vector<StackKernel> stack_kernels(const YamlReader& r, const std::string& key, std::vector<std::string>& names) {
  std::vector<StackKernel> out;
  if (!r.has(key)) return out;
  const std::vector<std::string> tensors = {"hidden", "q", "kv", "ffn", "vocab", "attention_mask", "kv_cache",
                                            "kv_cache_heads", "attention_scores"};
  for (const YamlReader& e : r.map_list(key)) {
    e.allow_only({"name", "kernels", "tensor", "passes", "masked_attention_only", "min_hidden_size", "grouped_kv_only"});
    StackKernel k;
    k.name = e.string("name");
    for (const auto& seen : names)
      if (seen == k.name) e.fail("name", "a name no other extra kernel of the stack has", "'" + k.name + "' again");
    names.push_back(k.name);
    k.kernels = e.int_in("kernels", 1, 1000);
    const std::string tensor = e.one_of("tensor", tensors);
    for (std::size_t i = 0; i < tensors.size(); ++i)
      if (tensors[i] == tensor) k.tensor = StackTensor(int(i));
    k.passes = e.non_negative("passes");
    k.masked_attention_only = e.boolean_or("masked_attention_only", false);
    if (e.has("min_hidden_size")) k.min_hidden_size = e.int_in("min_hidden_size", 1, 1 << 20);
    k.grouped_kv_only = e.boolean_or("grouped_kv_only", false);
    out.push_back(k);
  }
  return out;
}

}  // namespace

SoftwareStack load_software_stack(const std::string& path) {
  const YamlReader r = YamlReader::open(path);
  r.allow_only({"name", "description", "kernel_launch_host_us", "per_layer_host_us", "per_step_host_us", "per_sequence_host_us",
                "per_draft_pass_host_us",
                "cuda_graphs", "graph_launch_host_us", "host_overlaps_device", "runtime_reserve_gib", "ragged_batch_overhead_ratio", "collectives",
                "custom_all_reduce", "extra_kernels", "staged_device_copy", "single_host_process"});
  SoftwareStack s;
  s.source_file = path;
  s.name = r.string("name");
  s.description = r.string_or("description", "");
  s.kernel_launch_host_us = r.non_negative("kernel_launch_host_us");
  s.per_layer_host_us = r.non_negative("per_layer_host_us");
  s.per_step_host_us = r.non_negative("per_step_host_us");
  s.per_sequence_host_us = r.has("per_sequence_host_us") ? r.non_negative("per_sequence_host_us") : 0.0;
  s.per_draft_pass_host_us = r.has("per_draft_pass_host_us") ? r.non_negative("per_draft_pass_host_us") : 0.0;
  s.cuda_graphs = r.boolean("cuda_graphs");
  s.graph_launch_host_us = s.cuda_graphs ? r.non_negative("graph_launch_host_us") : 0.0;
  s.host_overlaps_device = r.boolean_or("host_overlaps_device", false);
  s.runtime_reserve_gib = r.non_negative("runtime_reserve_gib");
  s.ragged_batch_overhead_ratio = r.has("ragged_batch_overhead_ratio") ? r.non_negative("ragged_batch_overhead_ratio") : 0.0;
  if (r.has("extra_kernels")) {
    const YamlReader extra = r.child("extra_kernels");
    extra.allow_only({"per_layer", "per_step", "per_step_sampled"});
    std::vector<std::string> names;
    s.layer_kernels = stack_kernels(extra, "per_layer", names);
    s.step_kernels = stack_kernels(extra, "per_step", names);
    s.sampled_step_kernels = stack_kernels(extra, "per_step_sampled", names);
    if (s.layer_kernels.empty() && s.step_kernels.empty() && s.sampled_step_kernels.empty())
      extra.fail("per_layer", "per_layer, per_step and/or per_step_sampled kernels", "none");
  }
  s.single_host_process = r.boolean_or("single_host_process", false);
  if (auto c = r.optional_child("staged_device_copy")) {
    c->allow_only({"fixed_us", "ns_per_byte"});
    s.staged_device_copy = StagedDeviceCopy{c->non_negative("fixed_us"), c->non_negative("ns_per_byte")};
  }
  // Optional: a stack that runs no collectives (llama.cpp) names none.
  if (r.has("collectives") || r.has("custom_all_reduce")) {
    // The libraries live in the stack's own config tree (<tree>/stacks/NAME.yaml beside
    // <tree>/collectives/); a stack file outside any tree (/tmp/my-stack.yaml, a copy being
    // edited) takes the default tree's, rather than failing on a folder that cannot exist.
    std::filesystem::path root = std::filesystem::path(path).parent_path().parent_path();
    if (!std::filesystem::is_directory(root / "collectives")) root = ConfigRegistry::default_config_dir();
    const ConfigRegistry tree(root.string());
    auto library = [&](const std::string& key) {
      try {
        return tree.path("collectives", r.string(key));
      } catch (const InputError& e) {
        throw InputError(std::string(path) + ": " + key + ": " + e.what());
      }
    };
    if (r.has("collectives")) s.collectives = load_nccl(library("collectives"));
    if (r.has("custom_all_reduce")) {
      if (!s.collectives)
        r.fail("custom_all_reduce", "a collectives library beside it (calls the custom kernel declines go there)", "none");
      s.custom_all_reduce = load_custom_all_reduce(library("custom_all_reduce"));
    }
  }
  return s;
}

}  // namespace models
