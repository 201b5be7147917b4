// Fuzz target: stack config YAML (models::load_software_stack).
#include "models/software_stack.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile file(".yaml");
  const std::string& path = file.write(data, size);
  return fuzz::only_input_errors([&] { models::load_software_stack(path); });
}
