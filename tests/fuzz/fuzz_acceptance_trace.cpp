// Fuzz target: acceptance traces (DESIGN.md contract 3) through search::TraceReader, every
// accepted path formatted back.
#include <sstream>

#include "search/acceptance/trace.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::only_input_errors([&] {
    std::istringstream in(fuzz::as_text(data, size));
    search::TraceReader reader(in, "fuzz");
    search::RankPath accepted;
    while (reader.next(accepted)) search::format_rank_path(accepted);
  });
}
