// specdse import-model: a model YAML from a Hugging Face config.json (models/hf_import), so a
// model without a shipped config can be used by name or path at once.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <iostream>

#include "sim/io/output_path.hpp"
#include "experiments/cli/cli_common.hpp"
#include "models/config_error.hpp"
#include "models/hf_import.hpp"
#include "models/model_spec.hpp"
#include "models/yaml_reader.hpp"

namespace experiments {
namespace {

struct ImportArgs {
  std::string config_json, name, out;
};

int run_import(const ImportArgs& a) {
  sim::check_run_outputs({{"--out", a.out}}, {{"config_json", a.config_json}});
  if (!a.out.empty()) sim::check_output_target(a.out);
  const auto imported = models::import_hf_config(a.config_json, a.name);
  // The header names the file the user gave, without folders: no absolute path in configs.
  const std::string label = std::filesystem::path(a.config_json).filename().string() +
                            (std::filesystem::path(a.config_json).has_parent_path()
                                 ? " (" + std::filesystem::path(a.config_json).parent_path().filename().string() + "/)"
                                 : "");
  const std::string yaml = models::to_model_yaml(imported, label);
  // What is written must load as a model config: read back from memory first, so a size the
  // model loader refuses is one error and no file (never a config that fails later, at --model).
  const models::ModelSpec m = [&] {
    const std::string label = "(imported)";
    try {
      return models::load_model(models::YamlReader::from_node(YAML::Load(yaml), label));
    } catch (const models::InputError& e) {
      // The loader names the document; the user knows the config.json.
      std::string why = e.what();
      if (why.rfind(label + ": ", 0) == 0) why = why.substr(label.size() + 2);
      throw models::InputError(fmt::format("{}: the imported model would not load: {}", a.config_json, why));
    }
  }();
  for (const auto& i : imported.ignored) std::cerr << "specdse: note: " << i << "\n";
  if (a.out.empty()) {
    std::cout << yaml;
    return 0;
  }
  write_file_atomic(a.out, yaml);
  std::cerr << fmt::format("specdse: wrote {}: {} ({} layers, {:.2f} B parameters{})\n", a.out, m.name, m.layers,
                           m.parameters() / 1e9, m.is_moe() ? fmt::format(", {} experts", m.num_experts) : "");
  return 0;
}

const RegisterCommand import_model_registration{
    "import-model", "Model YAML from a Hugging Face config.json (Llama/Mistral/Qwen, MoE keys, Llama 4 text_config)",
    [](CLI::App& sub, const GlobalOptions&) -> CommandRunner {
      auto a = std::make_shared<ImportArgs>();
      sub.add_option("config_json", a->config_json, "Path of the model's config.json")->required();
      sub.add_option("--name", a->name, "Model name (default: the last part of _name_or_path, lower-cased)");
      sub.add_option("--out", a->out,
                     "Write the YAML here (e.g. configs/models/NAME.yaml, then --model NAME); default: stdout");
      return [a] { return run_import(*a); };
    },
    25};

}  // namespace
}  // namespace experiments
