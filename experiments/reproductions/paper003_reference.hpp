#pragma once
// Paper 003's (DuoDecoding) published values, read from configs/reference/paper003_*.yaml (each
// file names its source): the values shown beside specdse's (Tables 2-4, Fig. 4's text). Table 4
// is also an acceptance statistic the DuoDecoding process is fitted to
// (configs/acceptance/statistics/paper003-table4.yaml). Unknown or missing keys and a
// row listed twice are one-line InputErrors naming the file and key.
#include <array>
#include <map>
#include <string>

#include "search/scenarios/duodecoding/duo_acceptance.hpp"

namespace experiments {

// Tokens/s on the paper's four tasks, in this order.
using Paper003Tasks = std::array<double, 4>;  // MT-Bench, translation, math, code

// Table 4 lives with the DuoDecoding scenario, which fits its acceptance to it.
using search::duodecoding::Paper003Table4;
using search::duodecoding::paper003_table4;

// Table 2: tokens/s per strategy ("static:1", "static:2", "static:3", "dynamic").
std::map<std::string, Paper003Tasks> paper003_table2(const std::string& config_dir);

// Table 3: tokens/s per offset from the hardware-aware budget (-2..2), and that budget.
struct Paper003Table3 {
  int hardware_aware_budget = 0;
  std::map<int, Paper003Tasks> by_offset;
};
Paper003Table3 paper003_table3(const std::string& config_dir);

// §4.4.2: tokens processed per iteration.
struct Paper003Processed {
  int ad = 0, sps = 0, duodecoding = 0;
};
Paper003Processed paper003_fig4_processed(const std::string& config_dir);

}  // namespace experiments
