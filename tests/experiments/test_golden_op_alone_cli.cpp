// `specdse golden --measured` with an operators-timed-alone CSV (cuda/op_by_op_layer.py, or
// LLMCompass's published A100 figures in configs/reference/): per-op rows, each layer phase summed,
// the all-reduce rows costed on --system.
#include <catch2/catch.hpp>

#include <string>

#include "cli_run.hpp"

using cli_test::run;

namespace {

const std::string kA100 = std::string(SPECDSE_SOURCE_DIR) + "/configs/reference/llmcompass_a100_gpt3_ops.csv";
const std::string kH200 = std::string(SPECDSE_SOURCE_DIR) + "/notebooks_out/golden/h200_op_by_op_layer_2026-11-27_run1.csv";

}  // namespace

TEST_CASE("golden: an ops-timed-alone CSV gives per-op rows and a total per layer phase, all-reduces on --system") {
  const auto r = run("golden --hw a100-80gb --system hgx-a100-4gpu-nvlink --measured '" + kA100 + "' --format csv", false);
  REQUIRE(r.status == 0);
  const auto rows = cli_test::csv(r.output);
  REQUIRE(rows.size() == 1 + 140 + 2);  // header, every row of the file, decode and prefill totals
  CHECK(rows[0][1] == "set");
  CHECK(rows[0][13] == "error_pct");
  int totals = 0, calibrations = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    CHECK(rows[i][12] != "nan");
    totals += rows[i][2] == "layer";
    calibrations += rows[i][14] == "harness calibration";
  }
  CHECK(totals == 2);
  CHECK(calibrations == 4);
  const auto table = run("golden --hw a100-80gb --system hgx-a100-4gpu-nvlink --measured '" + kA100 + "'");
  CHECK(table.output.find("decode layer 1.111 ms measured") != std::string::npos);
  CHECK(table.output.find("all-reduce rows left out") == std::string::npos);
}

TEST_CASE("golden: without --system the all-reduce rows are left out and counted, and --system needs an ops CSV") {
  const auto r = run("golden --hw h200 --measured '" + kH200 + "'");
  CHECK(r.status == 0);
  CHECK(r.output.find("harness per call") != std::string::npos);
  const auto a100 = run("golden --hw a100-80gb --measured '" + kA100 + "'");
  CHECK(a100.status == 0);
  CHECK(a100.output.find("36 all-reduce rows left out (give --system to cost them)") != std::string::npos);
  const std::string kernels = std::string(SPECDSE_SOURCE_DIR) + "/notebooks_out/golden/h200_flash_attention_2026-11-26.csv";
  const auto wrong = run("golden --hw h200 --system hgx-a100-4gpu-nvlink --measured '" + kernels + "'");
  CHECK(wrong.status == 2);
  CHECK(wrong.output.find("--system: only with an ops-timed-alone CSV") != std::string::npos);
  const auto no_system = run("golden --hw a100-80gb --system no-such-system --measured '" + kA100 + "'");
  CHECK(no_system.status == 2);
}
