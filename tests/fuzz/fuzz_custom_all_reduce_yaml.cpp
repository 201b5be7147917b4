// Fuzz target: vLLM custom all-reduce config YAML (models::load_custom_all_reduce).
#include "models/custom_all_reduce_spec.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile file(".yaml");
  const std::string& path = file.write(data, size);
  return fuzz::only_input_errors([&] { models::load_custom_all_reduce(path); });
}
