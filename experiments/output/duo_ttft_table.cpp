#include "experiments/output/duo_ttft_table.hpp"

#include <string>

namespace experiments {

Table duo_ttft_table(const search::duodecoding::TtftResult& ttft) {
  Table t({"method", "ttft_s", "ttft_vs_ad", "ttft_vs_sps"});
  auto row = [&](const std::string& method, double s) {
    t.add_row({method, num(s), num(s / ttft.ad_s), num(s / ttft.sps_s)});
  };
  row("AD", ttft.ad_s);
  row("SpS", ttft.sps_s);
  row("DuoDecoding (sequential layout)", ttft.duo_sequential_s);
  row("DuoDecoding (parallel layout)", ttft.duo_parallel_s);
  return t;
}

}  // namespace experiments
