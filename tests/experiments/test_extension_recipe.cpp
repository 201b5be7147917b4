// docs/extending.md's recipe for a new scenario, checked: tests/extension/toy_scenario.cpp adds a
// scenario (and a plan scheme over it) in one file, and the binary built from the product's
// main.cpp plus that file finds it everywhere a scenario appears: its generated command,
// `specdse scenario`, `list scenarios`, a sweep and `plan`. Its numbers agree with `latency` and
// with plan's own plain row (both time one target pass per token under the device's stack).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "tests/experiments/cli_run.hpp"

namespace {

// `specdse_toy ARGS`; with_stderr false drops stderr (progress lines on a slow run: a CSV to parse).
cli_test::Result run_toy(const std::string& args, bool with_stderr = true) {
  return cli_test::run(args, with_stderr, SPECDSE_TOY_EXE);
}

std::size_t column(const std::vector<std::vector<std::string>>& rows, const std::string& name) {
  for (std::size_t i = 0; i < rows.front().size(); ++i)
    if (rows.front()[i] == name) return i;
  FAIL("no column " << name);
  return 0;
}

}  // namespace

TEST_CASE("extension recipe: a scenario added in one file is a command, a scenario, a sweep axis and a plan scheme") {
  const std::string workload = "--hw h100-sxm --model llama-3.1-8b-instruct --context 1024,4096";
  // Listed and runnable by its generated command and through `specdse scenario`, the same bytes.
  CHECK_THAT(run_toy("list scenarios").output, Catch::Contains("toy-ar"));
  CHECK_THAT(cli_test::run("list scenarios").output, !Catch::Contains("toy-ar"));  // not in the product
  const auto own = run_toy("toy-ar " + workload + " --tokens 10 --format csv", false);
  const auto generic = run_toy("scenario toy-ar " + workload + " --param tokens=10 --format csv", false);
  REQUIRE(own.status == 0);
  REQUIRE(generic.status == 0);
  CHECK(own.output == generic.output);
  const auto rows = cli_test::csv(own.output);
  REQUIRE(rows.size() == 3);
  // One target pass per token: latency's T_v at x = 1 on the same device and engine.
  const auto latency = cli_test::csv(cli_test::run("latency " + workload + " --x 1 --format csv", false).output);
  REQUIRE(latency.size() == 3);
  for (std::size_t r = 1; r <= 2; ++r) {
    const double t = std::stod(rows[r][column(rows, "t_token_s")]);
    CHECK(t == Approx(std::stod(latency[r][column(latency, "t_verify_s")])).epsilon(1e-9));
    CHECK(std::stod(rows[r][column(rows, "generation_s")]) == Approx(10 * t).epsilon(1e-9));
  }
  // Its declaration's checks come with it.
  CHECK(run_toy("toy-ar " + workload + " --tokens 0").status == 2);

  // A sweep axis: `scenario: toy-ar` over two contexts, one row each.
  const auto dir = std::filesystem::path(SPECDSE_TEST_BINARY_DIR) / "extension_recipe";
  std::filesystem::create_directories(dir);
  const auto spec = dir / "toy_sweep.yaml";
  std::ofstream(spec) << "scenario: toy-ar\naxes:\n  hw: h100-sxm\n  model: llama-3.1-8b-instruct\n"
                         "  context: [1024, 4096]\n  tokens: 10\n";
  const auto out = dir / "toy_sweep.csv";
  std::filesystem::remove(out);
  REQUIRE(run_toy("sweep --spec " + spec.string() + " --out " + out.string() + " --quiet").status == 0);
  std::ifstream f(out);
  const auto swept = cli_test::csv(std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>()));
  REQUIRE(swept.size() == 3);
  for (std::size_t r = 1; r <= 2; ++r)
    CHECK(std::stod(swept[r][column(swept, "t_token_s")]) ==
          Approx(std::stod(rows[r][column(rows, "t_token_s")])).epsilon(1e-9));

  // A plan scheme: its row times what plan's plain row times (the same pass, the same stack).
  const auto plan = cli_test::csv(
      run_toy("plan --hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --format csv", false).output);
  std::size_t toy = 0, plain = 0;
  for (std::size_t r = 1; r < plan.size(); ++r) {
    if (plan[r][column(plan, "scheme")] == "toy AR") toy = r;
    if (plan[r][column(plan, "scheme")] == "plain") plain = r;
  }
  REQUIRE(toy > 0);
  REQUIRE(plain > 0);
  CHECK(plan[toy][column(plan, "status")] == "ok");
  CHECK(std::stod(plan[toy][column(plan, "tbt_ms")]) == Approx(std::stod(plan[plain][column(plan, "tbt_ms")])).epsilon(1e-6));
  CHECK_THAT(plan[toy][column(plan, "reproduce")], Catch::Contains("toy-ar --hw h100-sxm"));
}
