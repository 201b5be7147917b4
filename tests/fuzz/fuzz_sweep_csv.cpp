// Fuzz target: the sweep CSVs read back: an output or a journal resumed
// (experiments::read_resume_rows) and a shard joined (experiments::merge_sweep_shards), both checked against a small fixed spec.
#include <numeric>

#include "experiments/sweep/sweep_runner.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {
// Two workload axes and a hardware-override axis: four points.
const char* const kSpec =
    "name: fuzz\n"
    "axes:\n"
    "  hardware: v80\n"
    "  model: llama-3.1-8b-instruct\n"
    "  algorithm: longspec-tree\n"
    "  context: [128, 1024]\n"
    "  memory.bandwidth_gbs: [100, 200]\n";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile spec_file("_spec.yaml");
  static const experiments::SweepSpec spec = [] {
    const std::string text = kSpec;
    return experiments::load_sweep_spec(
        spec_file.write(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  }();
  static const std::vector<std::size_t> indices = [] {
    std::vector<std::size_t> all(spec.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    return all;
  }();
  static fuzz::ScratchFile csv(".csv"), merged("_merged.csv");
  const std::string& path = csv.write(data, size);
  fuzz::only_input_errors([&] {
    std::size_t keep = 0;
    experiments::read_resume_rows(spec, path, indices, &keep);
  });
  fuzz::only_input_errors([&] {
    std::size_t keep = 0;
    std::string dropped;
    experiments::read_resume_rows(spec, path, indices, &keep, experiments::ResumeFile::journal, &dropped);
  });
  return fuzz::only_input_errors([&] { experiments::merge_sweep_shards(merged.path(), {path}, &spec); });
}
