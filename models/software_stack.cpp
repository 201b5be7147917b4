#include "models/software_stack.hpp"

#include <filesystem>

#include "models/config_error.hpp"

#include "models/config_registry.hpp"
#include "models/yaml_reader.hpp"

namespace models {

SoftwareStack load_software_stack(const std::string& path) {
  const YamlReader r = YamlReader::open(path);
  r.allow_only({"name", "description", "kernel_launch_host_us", "per_layer_host_us", "per_step_host_us",
                "cuda_graphs", "graph_launch_host_us", "runtime_reserve_gib", "ragged_batch_overhead_ratio", "collectives",
                "custom_all_reduce"});
  SoftwareStack s;
  s.source_file = path;
  s.name = r.string("name");
  s.description = r.string_or("description", "");
  s.kernel_launch_host_us = r.non_negative("kernel_launch_host_us");
  s.per_layer_host_us = r.non_negative("per_layer_host_us");
  s.per_step_host_us = r.non_negative("per_step_host_us");
  s.cuda_graphs = r.boolean("cuda_graphs");
  s.graph_launch_host_us = s.cuda_graphs ? r.non_negative("graph_launch_host_us") : 0.0;
  s.runtime_reserve_gib = r.non_negative("runtime_reserve_gib");
  s.ragged_batch_overhead_ratio = r.has("ragged_batch_overhead_ratio") ? r.non_negative("ragged_batch_overhead_ratio") : 0.0;
  // Optional: a stack that runs no collectives (llama.cpp) names none.
  if (r.has("collectives") || r.has("custom_all_reduce")) {
    const ConfigRegistry tree(std::filesystem::path(path).parent_path().parent_path().string());
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
