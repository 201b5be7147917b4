// `specdse golden --measured` with a MoE-layer CSV (cuda/moe_layer_kernels.py): one row per
// graph-replay component, and a summary per component and for the routing law.
#include <catch2/catch.hpp>

#include <string>

#include "cli_run.hpp"

using cli_test::run;

TEST_CASE("golden: a MoE layer CSV gives a row per graph-replay component and the routing law's error") {
  const std::string csv = std::string(SPECDSE_SOURCE_DIR) + "/notebooks_out/golden/h200_moe_layer_2026-11-29_loop.csv";
  const auto r = run("golden --hw h200 --measured '" + csv + "' --format csv", false);
  REQUIRE(r.status == 0);
  const auto rows = cli_test::csv(r.output);
  REQUIRE(rows.size() == 1 + 70);  // header; seven components x ten T (the eager rows and the bandwidth probe left out)
  CHECK(rows[0][4] == "component");
  CHECK(rows[0][11] == "error_pct");
  for (std::size_t i = 1; i < rows.size(); ++i) {
    CHECK(rows[i][11] != "nan");
    CHECK(rows[i][5] == "loop");
  }
  const auto table = run("golden --hw h200 --measured '" + csv + "'");
  CHECK(table.output.find("layer (loop)") != std::string::npos);
  CHECK(table.output.find("distinct experts (routing law") != std::string::npos);
  // --stack means nothing for a layer timed by replayed CUDA graphs: refused.
  const auto stack = run("golden --hw h200 --stack pytorch-eager --measured '" + csv + "'");
  CHECK(stack.status == 2);
}
