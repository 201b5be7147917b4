// Draft-model choice (paper 001 §5): OLS accuracy model, best (draft, gamma), Theorem 2.
#include <algorithm>
#include <sstream>
#include <catch2/catch.hpp>

#include <cstdio>

#include "models/config_error.hpp"
#include "search/window/draft_select.hpp"
#include "test_window_cli_support.hpp"

using namespace search;

TEST_CASE("OLS accuracy model recovers Z on noiseless prompts and rejects dependent features", "[draft_select]") {
  const std::vector<double> z = {0.5, 0.02, -0.1};
  const std::vector<std::vector<double>> prompts = {{1, 3, 0.2}, {1, 10, 0.5}, {1, 1, 0.9}, {1, 6, 0.1}};
  std::vector<double> alpha;
  for (const auto& u : prompts) alpha.push_back(u[0] * z[0] + u[1] * z[1] + u[2] * z[2]);
  const auto m = fit_accuracy_ols(prompts, alpha, "test");
  for (int j = 0; j < 3; ++j) CHECK(m.coefficients[j] == Approx(z[std::size_t(j)]).margin(1e-12));
  CHECK(m.r_squared == Approx(1.0));
  CHECK(m.predict({1, 4, 0.3}) == Approx(0.5 + 0.08 - 0.03));
  CHECK_THROWS_AS(m.predict({1, 4}), models::InputError);
  // Second feature = 2 x first: rank 1 of 2.
  CHECK_THROWS_AS(fit_accuracy_ols({{1, 2}, {2, 4}, {3, 6}}, {0.5, 0.6, 0.7}, "dep"), models::InputError);
  CHECK_THROWS_AS(fit_accuracy_ols({{1, 2, 3}}, {0.5}, "few"), models::InputError);
}

TEST_CASE("draft choice maximises throughput, Theorem 2 is evaluated against the fastest draft", "[draft_select]") {
  // Constant-latency drafts: a cheap inaccurate one, a pricier accurate one, a pricier useless one.
  std::vector<DraftCandidate> c = {
      {"small", 0.6, "given", ChainLatency::constant(0.02, 1.0, 16)},
      {"large", 0.9, "given", ChainLatency::constant(0.08, 1.0, 16)},
      {"large-bad", 0.61, "given", ChainLatency::constant(0.2, 1.0, 16)},
  };
  const auto e = evaluate_drafts(c, 256);
  REQUIRE(e.size() == 3);
  CHECK(e[0].theorem2 == "baseline");
  CHECK(e[1].chosen);
  CHECK_FALSE(e[0].chosen);
  for (const auto& d : e) {
    CHECK(d.best.gamma >= 1);
    CHECK(d.best.tokens_per_s == Approx(optimal_gamma(d.accuracy, c[&d - &e[0]].latency, 1).tokens_per_s));
    CHECK(d.rho == Approx(d.best.expected_tokens / d.best.gamma));
    CHECK(d.steps == Approx(256 / d.best.expected_tokens));
  }
  CHECK(e[1].faster_than_baseline);
  CHECK_FALSE(e[2].faster_than_baseline);
  CHECK(e[1].delta_n > 0);
  CHECK((e[1].theorem2 == "holds" || e[1].theorem2 == "fails" || e[1].theorem2 == "undefined"));
  CHECK_THROWS_AS(evaluate_drafts({{"x", 1.0, "given", ChainLatency::constant(0.1, 1, 4)}}, 256), models::InputError);
  CHECK_THROWS_AS(evaluate_drafts({}, 256), models::InputError);
}

TEST_CASE("specdse draft-select CLI: given and OLS-predicted accuracies, bad input exits 2", "[draft_select][cli]") {
  using window_test::run_cli;
  const std::string base = "draft-select --hw rtx4090 --model bloom-7b1 --drafts bloom-560m,bloom-1b1 --context 512";
  const auto given = run_cli(base + " --alpha 0.6,0.7 --format csv");
  INFO(given.output);
  REQUIRE(given.exit_code == 0);
  CHECK(given.output.find("bloom-560m,0.6,given") != std::string::npos);
  {  // exactly one draft row is chosen (read by the header's "chosen" column, not its position)
    std::istringstream lines(cli_test::without_comments(given.output));
    std::string line;
    std::getline(lines, line);
    const auto split = [](const std::string& text) {
      std::vector<std::string> cells;
      std::stringstream ss(text);
      for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
      if (!text.empty() && text.back() == ',') cells.push_back("");
      return cells;
    };
    const auto header = split(line);
    const auto col = std::find(header.begin(), header.end(), "chosen") - header.begin();
    REQUIRE(col < static_cast<long>(header.size()));
    int chosen = 0;
    while (std::getline(lines, line)) {
      const auto cells = split(line);
      if (static_cast<long>(cells.size()) > col && cells[col] == "yes") ++chosen;
    }
    CHECK(chosen == 1);
  }

  const auto training = window_test::temp_path("training.csv");
  window_test::write_text(training,
                          "draft,alpha,length,perplexity\n"
                          "bloom-560m,0.62,1,0.5\nbloom-560m,0.55,1,1.2\nbloom-560m,0.58,2,0.8\n"
                          "bloom-1b1,0.70,1,0.5\nbloom-1b1,0.64,1,1.2\nbloom-1b1,0.67,2,0.8\n");
  const auto predicted = run_cli(base + " --training " + training + " --features 1,0.7 --format csv");
  INFO(predicted.output);
  CHECK(predicted.exit_code == 0);
  CHECK(predicted.output.find(",ols,") != std::string::npos);

  CHECK(run_cli(base + " --alpha 0.6").exit_code == 2);          // one accuracy for two drafts
  CHECK(run_cli(base + " --alpha 0.6,1.2").exit_code == 2);      // outside (0, 1)
  CHECK(run_cli(base + " --alpha 0.6,0.7 --gamma-max 0").exit_code == 2);
  CHECK(run_cli(base + " --training " + training + " --features 1").exit_code == 2);  // wrong dimension
  CHECK(run_cli(base).exit_code == 2);                            // no accuracies at all
  std::remove(training.c_str());
}
