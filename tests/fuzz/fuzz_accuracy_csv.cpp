// Fuzz target: draft-accuracy training CSVs (search::read_accuracy_training, draft-select's
// --training file), then the least-squares fit of its first draft.
#include "search/window/draft_select.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile file(".csv");
  const std::string& path = file.write(data, size);
  return fuzz::only_input_errors([&] {
    const search::AccuracyTrainingSet set = search::read_accuracy_training(path);
    set.fit(set.rows.front().draft);  // the reader refuses a file without rows
  });
}
