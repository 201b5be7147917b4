// Fuzz target: system YAML (models::load_system: devices, links, placement), resolved against
// the shipped configs; a loaded system's placement is then checked for a shipped model.
#include "models/config_registry.hpp"
#include "models/system_spec.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const models::ConfigRegistry registry;
  static const models::ModelSpec target = registry.model("llama-3.1-8b-instruct");
  static fuzz::ScratchFile file(".yaml");
  const std::string& path = file.write(data, size);
  return fuzz::only_input_errors([&] {
    models::SystemSpec system = models::load_system(path, registry);
    system.validate_placement(target);
  });
}
