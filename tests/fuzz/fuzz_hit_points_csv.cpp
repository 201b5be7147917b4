// Fuzz target: SpecPipe top-k hit points (search::specpipe::load_hit_points, the format of
// configs/acceptance/specpipe_hit_points.csv).
#include "search/scenarios/specpipe/hit_curve.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile file(".csv");
  const std::string& path = file.write(data, size);
  return fuzz::only_input_errors([&] { search::specpipe::load_hit_points(path); });
}
