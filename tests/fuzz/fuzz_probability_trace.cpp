// Fuzz target: probability traces (search::parse_probability_trace), formatted back.
#include "search/acceptance/probability_trace.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::only_input_errors([&] {
    const search::ProbabilityTrace trace = search::parse_probability_trace(fuzz::as_text(data, size), "fuzz");
    trace.acceptance_rate();
    search::format_probability_trace(trace, "");
  });
}
