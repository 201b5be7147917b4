#pragma once
// Paper 004's acceptance figures, read from configs/reference/paper004_table1.yaml and
// paper004_table2.yaml (each file names its source): the positional acceptance model is fitted
// to Table 1, Table 2 is shown beside it. Unknown or missing keys and a model listed twice are
// InputErrors naming the file and key.
#include <string>
#include <vector>

#include "search/acceptance/positional_acceptance.hpp"

namespace search {

struct Paper004Table1 {
  struct OwnEagle {
    std::string model;
    double chain3_tpc = 0;  // "<model> w/ EAGLE (Ours)", chain of 3, MT-Bench
  };
  struct Eagle3 {
    std::string model;
    std::string label;                // the row's name in the paper ("8B")
    std::vector<ChainTpcPoint> chain;  // TPC at chain lengths 3, 5, 7
  };
  std::vector<OwnEagle> own_eagle;  // in the file's order
  std::vector<Eagle3> eagle3;
};

// Table 2: the head's FFN in BF16, FP8 or INT4 (chain of 3, MT-Bench).
struct Paper004Table2Row {
  std::string model;
  double bf16_tpc = 0, fp8_tpc = 0, int4_tpc = 0;
  double fp8_draft_latency_relative = 0, int4_draft_latency_relative = 0;  // to BF16
};

// configs/reference/paper004_table1.yaml / paper004_table2.yaml under `config_dir`.
Paper004Table1 load_paper004_table1(const std::string& config_dir);
std::vector<Paper004Table2Row> load_paper004_table2(const std::string& config_dir);

}  // namespace search
