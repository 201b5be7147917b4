// `specdse golden --measured` with a Hugging Face generate-loop CSV (cuda/run_hf_generate.sh):
// the CLI tells it from the other measured CSVs by its header and needs a stack for it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_run.hpp"

using cli_test::run;

namespace {

const std::string kRun1 = std::string(SPECDSE_SOURCE_DIR) + "/notebooks_out/golden/h200_hf_generate_2026-11-27_run1.csv";

}  // namespace

TEST_CASE("golden: a generate-loop CSV is compared under --stack, row by row, with a greedy summary") {
  const auto r = run("golden --hw h200 --stack huggingface-transformers --measured '" + kRun1 + "' --format csv", false);
  REQUIRE(r.status == 0);
  const auto rows = cli_test::csv(r.output);
  REQUIRE(rows.size() == 1 + 12);  // two models x two batches x three generate variants (forward_loop skipped)
  CHECK(rows[0][3] == "variant");
  CHECK(rows[0][12] == "error_pct");
  for (std::size_t i = 1; i < rows.size(); ++i) CHECK(rows[i][3].rfind("generate_", 0) == 0);
  const auto summary = run("golden --hw h200 --stack huggingface-transformers --measured '" + kRun1 + "'");
  CHECK(summary.output.find("over 4 greedy generate loops") != std::string::npos);
}

TEST_CASE("golden: a generate-loop CSV without --stack, or on a CPU, is one line and exit 2") {
  const auto no_stack = run("golden --hw h200 --measured '" + kRun1 + "'");
  CHECK(no_stack.status == 2);
  CHECK(no_stack.output.find("needs --stack") != std::string::npos);
  const auto cpu = run("golden --hw xeon-16c --stack huggingface-transformers --measured '" + kRun1 + "'");
  CHECK(cpu.status == 2);
  CHECK(cpu.output.find("only for GPU configs") != std::string::npos);
  // This host (a CPU) with a GPU's CSV: refused before any calibration runs.
  const auto host = run("golden --hw host --stack huggingface-transformers --measured '" + kRun1 + "'");
  CHECK(host.status == 2);
  CHECK(host.output.find("only for GPU configs") != std::string::npos);
  CHECK(host.output.find("calibrated this host") == std::string::npos);
}

TEST_CASE("golden: uncounted kernels and no greedy rows print empty cells and say so, never nan") {
  const auto path = std::filesystem::temp_directory_path() / "specdse_golden_generate_uncounted.csv";
  std::ofstream(path) << "model,variant,batch,context,new_tokens,kernels_per_token,per_token_s\n"
                      << "llama-3.2-1b,generate_sample,1,1024,32,-1,0.0155\n";
  const auto r = run("golden --hw h200 --stack huggingface-transformers --measured '" + path.string() + "'");
  CHECK(r.status == 0);
  CHECK(r.output.find("nan") == std::string::npos);
  CHECK(r.output.find("no greedy generate loops") != std::string::npos);
  const auto rows = cli_test::csv(
      run("golden --hw h200 --stack huggingface-transformers --measured '" + path.string() + "' --format csv", false).output);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1][7].empty());  // measured_kernels
  CHECK(rows[1][9].empty());  // kernel_error_pct
}
