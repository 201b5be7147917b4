// Fuzz target: measured AAT tables (search::AcceptanceData::load, the format of
// configs/acceptance/aat_measurements.csv), then a query over every row and each row's tree
// shape (search::parse_tree_shape).
#include "search/acceptance/acceptance_data.hpp"
#include "search/optimizer.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile file(".csv");
  const std::string& path = file.write(data, size);
  return fuzz::only_input_errors([&] {
    const search::AcceptanceData table = search::AcceptanceData::load(path);
    table.contexts(search::AatQuery{});
    for (const auto& row : table.rows()) search::parse_tree_shape(row.tree_shape);
  });
}
