// `specdse serve`: the serving simulator's command prints percentiles and goodput with and without
// speculation per rate, names where speculation stops paying, gives the same bytes for the same
// seed, and refuses bad input with one line and exit 2.
#include <catch2/catch.hpp>

#include <string>

#include "tests/experiments/cli_run.hpp"

using cli_test::column;
using cli_test::csv;
using cli_test::run;

TEST_CASE("serve: no SD and EAGLE-3 per rate on one H100, Little's law on every row, same seed same bytes") {
  const std::string args = "serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 1,32 --duration-s 30 --format csv";
  const auto r = run(args, false);
  REQUIRE(r.status == 0);
  CHECK(run(args, false).output == r.output);
  CHECK_THAT(r.output, Catch::Contains("# sd_stops_paying_at_per_s: ") && Catch::Contains("# workload: sharegpt-llama3.1-8b"));
  const auto t = csv(r.output);
  REQUIRE(t.size() == 5);
  const auto& h = t[0];
  for (std::size_t i = 1; i < t.size(); ++i) {
    CHECK(t[i][column(h, "status")] == "ok");
    CHECK(t[i][column(h, "finished")] == t[i][column(h, "requests")]);
    CHECK(std::stod(t[i][column(h, "littles_law_ratio")]) == Approx(1).epsilon(1e-6));
    CHECK(std::stod(t[i][column(h, "kv_peak_fraction")]) <= 1.0);
    CHECK(std::stod(t[i][column(h, "ttft_p50_ms")]) <= std::stod(t[i][column(h, "ttft_p99_ms")]));
  }
  // At one request a second a sequence mostly decodes alone: EAGLE-3 cuts its time per token.
  CHECK(std::stod(t[2][column(h, "tpot_p50_ms")]) < 0.8 * std::stod(t[1][column(h, "tpot_p50_ms")]));
  // The batch grows with the rate.
  CHECK(std::stod(t[3][column(h, "mean_batch")]) > 4 * std::stod(t[1][column(h, "mean_batch")]));
}

TEST_CASE("serve: bad requests are one-line errors with exit 2") {
  for (const auto& [args, what] : std::vector<std::pair<std::string, std::string>>{
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 0", "rate"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --workload nope", "available: gsm8k-llama3.1-8b"},
           {"serve --hw v80 --model llama-3.1-8b-instruct", "kind gpu"},
           {"serve --hw rtx3090 --model llama-3.1-70b", "infeasible"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --k 0", "k"}}) {
    const auto r = run(args);
    INFO(args << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(what));
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  }
}
