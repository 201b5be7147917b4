#pragma once
// Imports a model shape from a Hugging Face `config.json` (Llama, Mistral, Qwen2/3 dense; the
// MoE keys of Mixtral, Qwen2/3-MoE and Llama 4, whose text model sits under `text_config`) and
// writes it as a configs/models YAML. JSON is read with yaml-cpp (JSON is YAML 1.2 flow syntax).
// Every value comes from a key of the file, or from the documented default of the model family
// named beside it in the YAML's header comment.
#include <string>
#include <vector>

#include "models/model_spec.hpp"

namespace models {

struct HfImport {
  ModelSpec model;
  std::string model_type;             // config.json's model_type (of the text model)
  std::vector<std::string> notes;     // where each non-obvious value came from
  std::vector<std::string> ignored;   // keys read but not modelled (also in notes), for a warning
};

// Throws InputError naming the file and key for a missing or malformed key, and for
// architectures this importer does not map (e.g. MLA attention, sliding-window-only models).
// `name` empty: the last component of `_name_or_path`, lower-cased; else an error asking for one.
HfImport import_hf_config(const std::string& path, const std::string& name = "");

// The model YAML (same keys and order as configs/models/*.yaml), with a header comment naming
// the source file and the notes. load_model() reads it back to the same ModelSpec.
std::string to_model_yaml(const HfImport& imported, const std::string& source_label);

}  // namespace models
