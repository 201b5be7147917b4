// Fuzz target: chain acceptance traces with optional cache flags (search::parse_chain_trace).
#include "search/acceptance/chain_trace.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::only_input_errors([&] {
    const search::ChainTrace trace = search::parse_chain_trace(fuzz::as_text(data, size), "fuzz");
    trace.mean_matched();
  });
}
