// --batch lists in optimize and tree-search: one row per batch size, each sequence
// verifying its own tree against its own context, so T_v grows with B and the best tree shrinks.
#include <catch2/catch.hpp>

#include "tests/experiments/cli_run.hpp"

#include <cstdio>
#include <sstream>
#include <unistd.h>
#include <string>
#include <vector>

namespace {

using cli_test::run;

using cli_test::column;
using cli_test::csv;

}  // namespace

TEST_CASE("optimize --batch 1,8,32: a row per batch, T_v grows and the best x shrinks with B") {
  const auto r = run("optimize --hw h100-sxm --model llama-3.1-8b-instruct --algorithm eagle3-tree --context 1024 "
                     "--batch 1,8,32 --format csv", false);
  REQUIRE(r.status == 0);
  const auto rows = csv(r.output);
  REQUIRE(rows.size() == 4);
  const auto b = column(rows[0], "batch"), x = column(rows[0], "best_x"), tv = column(rows[0], "t_verify_s");
  CHECK(rows[1][b] == "1");
  CHECK(rows[3][b] == "32");
  CHECK(std::stod(rows[3][tv]) > std::stod(rows[1][tv]));
  CHECK(std::stoi(rows[3][x]) < std::stoi(rows[1][x]));
  // The single-batch row is the plain optimize row.
  const auto one = run("optimize --hw h100-sxm --model llama-3.1-8b-instruct --algorithm eagle3-tree --context 1024 "
                       "--format csv", false);
  CHECK(csv(one.output)[1] == rows[1]);
  const auto bad = run("optimize --hw h100-sxm --model llama-3.1-8b-instruct --algorithm eagle3-tree --context 1024 "
                       "--batch 0");
  CHECK(bad.status == 2);
  CHECK_THAT(bad.output, Catch::Contains("--batch"));
}

TEST_CASE("tree-search --batch 1,64 with --hw: rows per batch, a smaller best tree at the larger batch") {
  const auto gen = run("trace-gen --acceptance-vector 0.6,0.15,0.05 --lines 300 --seed 1", false);
  REQUIRE(gen.status == 0);
  const std::string path = std::string("/tmp/specdse_batch_lists_trace_") + std::to_string(::getpid()) + ".txt";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    REQUIRE(f != nullptr);
    std::fputs(gen.output.c_str(), f);
    std::fclose(f);
  }
  const auto r = run("tree-search --trace " + path + " --x-max 16 --hw h100-sxm --model llama-3.1-8b-instruct "
                     "--algorithm eagle3-tree --context 1024 --batch 1,64 --format csv", false);
  REQUIRE(r.status == 0);
  const auto rows = csv(r.output);
  const auto m = column(rows[0], "method"), b = column(rows[0], "batch"), x = column(rows[0], "x"),
             best = column(rows[0], "best");
  int best_x[2] = {0, 0};
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i][m] == "hardware-aware" && rows[i].size() > best && rows[i][best] == "best")
      best_x[rows[i][b] == "64" ? 1 : 0] = std::stoi(rows[i][x]);
  CHECK(best_x[0] > 0);
  CHECK(best_x[1] > 0);
  CHECK(best_x[1] < best_x[0]);
  const auto no_hw = run("tree-search --trace " + path + " --x-max 8 --batch 4");
  CHECK(no_hw.status == 2);
  CHECK_THAT(no_hw.output, Catch::Contains("--batch"));
  std::remove(path.c_str());
}
