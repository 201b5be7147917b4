// Fuzz target: the short strings that name tree nodes and shapes: one acceptance-trace line
// (search::parse_rank_path, formatted back and parsed again to the same path) and a tree shape
// ("4 4 3 1", search::parse_tree_shape).
#include <stdexcept>

#include "search/acceptance/trace.hpp"
#include "search/optimizer.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz::as_text(data, size);
  for (int w : search::parse_tree_shape(text))
    if (w <= 0) throw std::logic_error("parse_tree_shape kept a width <= 0");
  return fuzz::only_input_errors([&] {
    const search::RankPath path = search::parse_rank_path(text, "fuzz", 1);
    if (search::parse_rank_path(search::format_rank_path(path), "fuzz", 1) != path)
      throw std::logic_error("format_rank_path does not round-trip");
  });
}
