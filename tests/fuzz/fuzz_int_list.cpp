// Fuzz target: the CLI's list options: integer lists and ranges ("1-128", "1,2,4,8-16":
// experiments::parse_int_list), number lists (parse_double_list), acceptance vectors
// (search::parse_acceptance_vector) and synthetic chain segments ("2000:0.9,2000:0.5:0.3":
// search::parse_chain_segments). An integer list must come back sorted, unique and >= its
// minimum.
#include <algorithm>
#include <stdexcept>

#include "experiments/cli/cli_common.hpp"
#include "search/acceptance/chain_trace.hpp"
#include "search/acceptance/trace_generator.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz::as_text(data, size);
  fuzz::only_input_errors([&] {
    const auto values = experiments::parse_int_list("--x", text, 1);
    if (!std::is_sorted(values.begin(), values.end()) ||
        std::adjacent_find(values.begin(), values.end()) != values.end() || values.front() < 1)
      throw std::logic_error("parse_int_list: not sorted, unique and >= 1");
  });
  fuzz::only_input_errors([&] { experiments::parse_double_list("--alpha", text); });
  fuzz::only_input_errors([&] { search::parse_acceptance_vector("--acceptance-vector", text); });
  return fuzz::only_input_errors([&] { search::parse_chain_segments("--synthetic", text); });
}
