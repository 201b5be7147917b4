// Fuzz target: sweep spec YAML (experiments::load_sweep_spec), then the first and last points
// of the product it describes.
#include "experiments/sweep/sweep_spec.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile file(".yaml");
  const std::string& path = file.write(data, size);
  return fuzz::only_input_errors([&] {
    const experiments::SweepSpec spec = experiments::load_sweep_spec(path);
    const std::size_t n = spec.size();
    if (n > 0) {
      spec.point(0);
      spec.point(n - 1);
    }
  });
}
