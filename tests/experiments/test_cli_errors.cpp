// Bad input through the CLI: one line on stderr naming what was wrong, exit status 2.
#include <catch2/catch.hpp>

#include "tests/experiments/cli_run.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <sys/wait.h>

using cli_test::run;

TEST_CASE("Unknown hardware exits 2 with the available names") {
  const auto r = run("latency --hw v81 --model llama-3.1-8b-instruct");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown hardware 'v81'") && Catch::Contains("u280"));
}

TEST_CASE("An unknown board or model says how to add one") {
  const auto hw = run("latency --hw b200 --model llama-3.1-8b-instruct");
  CHECK(hw.status == 2);
  CHECK_THAT(hw.output, Catch::Contains("unknown hardware 'b200'") && Catch::Contains("h200") &&
                            Catch::Contains("configs/hardware/b200.yaml") && Catch::Contains("docs/extending.md"));
  const auto model = run("latency --hw h100-sxm --model mistral-7b");
  CHECK(model.status == 2);
  CHECK_THAT(model.output, Catch::Contains("unknown model 'mistral-7b'") &&
                               Catch::Contains("specdse import-model config.json --name mistral-7b"));
}

TEST_CASE("optimize's help marks --algorithm required, as the other required flags") {
  const auto r = run("optimize --help");
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Catch::Matches(R"((.|\n)*--algorithm TEXT REQUIRED(.|\n)*)"));
  CHECK(run("optimize --hw v80 --model llama-3.1-8b-instruct --context 1024").status == 2);
  CHECK(run("optimize --hw v80 --model llama-3.1-8b-instruct --context 1024 --algorithm longspec-tree "
            "--draft longspec-tree").status == 2);
}

TEST_CASE("x < 1 and malformed lists exit 2") {
  CHECK(run("latency --hw v80 --model llama-3.1-8b-instruct --x 0").status == 2);
  CHECK(run("latency --hw v80 --model llama-3.1-8b-instruct --x 1-abc").status == 2);
  CHECK(run("latency --hw v80 --model llama-3.1-8b-instruct --context -5").status == 2);
}

TEST_CASE("A fit with too few points exits 2 naming the data") {
  const auto r = run("fit --algorithm longspec-tree --model llama-3.1-8b-instruct --task govreport "
                     "--context 128 --source-table 't3-4 naive 36-node shape' --no-ad-anchor");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("3 distinct x"));
}

TEST_CASE("optimize beyond the measured contexts exits 2 and lists contexts that have data") {
  // Between two measured contexts the AAT is interpolated; below the smallest it is not.
  const auto r = run("optimize --hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 77");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("context 77 ") && Catch::Contains("128"));
}

TEST_CASE("latency prints CSV with SI units in the header and JSON on request") {
  const auto csv = run("latency --hw v80 --model llama-3.1-8b-instruct --x 1,2 --context 128 --format csv");
  CHECK(csv.status == 0);
  CHECK_THAT(csv.output, Catch::StartsWith("hw,model,engine,batch,x,context,t_verify_s,tokens_per_s_total"));
  const auto json = run("latency --hw h100-sxm --model llama-3.1-8b-instruct --draft eagle3-tree --x 8 --format json");
  CHECK(json.status == 0);
  CHECK_THAT(json.output, Catch::Contains("\"t_draft_s\": "));
}

TEST_CASE("latency takes a batch list: one row per batch, same T_v at batch 1 as the single value") {
  const auto list = run("latency --hw h100-sxm --model llama-3.1-8b-instruct --x 4 --context 1024 --batch 1,8 --format csv",
                        false);
  REQUIRE(list.status == 0);
  const auto one = run("latency --hw h100-sxm --model llama-3.1-8b-instruct --x 4 --context 1024 --format csv", false);
  REQUIRE(one.status == 0);
  // Header + batch 1 + batch 8; the batch-1 row is the single-value run's row.
  CHECK(std::count(list.output.begin(), list.output.end(), '\n') == 3);
  const auto first_row = [](const std::string& csv) {
    const auto a = csv.find('\n') + 1;
    return csv.substr(a, csv.find('\n', a) - a);
  };
  CHECK(first_row(list.output) == first_row(one.output));
  CHECK_THAT(list.output, Catch::Contains(",8,4,1024,"));
}

TEST_CASE("CLI11 parse errors are one project line, with exit 2") {
  const auto r = run("latency --hw v80 --model llama-3.1-8b-instruct --format xml");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::StartsWith("specdse: error: --format"));
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  const auto help = run("latency --help");
  CHECK(help.status == 0);
  CHECK_THAT(help.output, Catch::Contains("--batch"));
}

TEST_CASE("settings a run would ignore are errors: --top-p without top-p verification, an empty --task") {
  auto r = run("specpipe --model llama-3.1-70b --top-p 0.5 --tokens 20 --no-boundary --no-baselines");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("--top-p 0.5 applies with --verify top-p"));
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  r = run("specpipe --model llama-3.1-70b --verify top-p --top-p 0.5 --tokens 20 --no-boundary --no-baselines --format csv");
  CHECK(r.status == 0);
  r = run("optimize --hw h100-sxm --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024 --task ''");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("task") && Catch::Contains("a task name"));
  // An empty --context is a slip, not the default context.
  r = run("plan --hw h100-sxm --model llama-3.1-8b-instruct --context ''");
  CHECK(r.status == 2);
  CHECK(r.output == "specdse: error: --context: no values given\n");
}
