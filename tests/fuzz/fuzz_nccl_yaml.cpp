// Fuzz target: NCCL collective-library config YAML (models::load_nccl).
#include "models/nccl_spec.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile file(".yaml");
  const std::string& path = file.write(data, size);
  return fuzz::only_input_errors([&] { models::load_nccl(path); });
}
