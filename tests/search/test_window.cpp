// Chain SD model and the optimal speculation window (paper 001 objective (1), Fig. 5).
#include <catch2/catch.hpp>

#include <cmath>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "roofline/analytic_engine.hpp"
#include "search/window/chain_sd.hpp"
#include "test_window_cli_support.hpp"

using namespace search;

namespace {
// Independent brute force of objective (1) with T_v = 1 and draft time per token c.
int brute_force_gamma_star(double a, double c, int gamma_max) {
  int best = 0;
  double best_value = -1;
  for (int g = 0; g <= gamma_max; ++g) {
    const double value = (1 - std::pow(a, g + 1)) / ((1 - a) * (1 + g * c));
    if (value > best_value + 1e-15) {
      best_value = value;
      best = g;
    }
  }
  return best;
}
}  // namespace

TEST_CASE("chain expected tokens follow (1 - a^(g+1)) / (1 - a)", "[window]") {
  for (double a : {0.1, 0.5, 0.8, 0.95})
    for (int g : {0, 1, 3, 10})
      CHECK(chain_expected_tokens(a, g) == Approx((1 - std::pow(a, g + 1)) / (1 - a)).epsilon(1e-12));
  CHECK(chain_expected_tokens(1.0, 5) == 6.0);  // every token accepted
  CHECK(chain_expected_tokens(0.0, 5) == 1.0);  // only the bonus token
  CHECK_THROWS_AS(chain_expected_tokens(1.5, 2), models::InputError);
}

TEST_CASE("gamma* map has the shape of paper 001 Fig. 5 and matches brute force", "[window]") {
  const std::vector<double> alphas = {0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95};
  const std::vector<double> costs = {0.01, 0.02, 0.05, 0.1, 0.2, 0.4};
  const int gamma_max = 32;
  const auto cells = gamma_star_map(alphas, costs, gamma_max);
  REQUIRE(cells.size() == alphas.size() * costs.size());
  auto at = [&](std::size_t ai, std::size_t ci) { return cells[ci * alphas.size() + ai].best.gamma; };
  for (std::size_t ci = 0; ci < costs.size(); ++ci)
    for (std::size_t ai = 1; ai < alphas.size(); ++ai) CHECK(at(ai, ci) >= at(ai - 1, ci));  // grows with a
  for (std::size_t ai = 0; ai < alphas.size(); ++ai)
    for (std::size_t ci = 1; ci < costs.size(); ++ci) CHECK(at(ai, ci) <= at(ai, ci - 1));  // shrinks with c
  // Strictly informative corners: a cheap, accurate draft drafts far more than an expensive one.
  CHECK(at(alphas.size() - 1, 0) > at(alphas.size() - 1, costs.size() - 1) + 5);
  for (const auto& cell : cells) {
    INFO("a = " << cell.accuracy << ", c = " << cell.cost_ratio);
    CHECK(cell.best.gamma == brute_force_gamma_star(cell.accuracy, cell.cost_ratio, gamma_max));
    CHECK(cell.speedup >= 1.0);
  }
  // Pinned cells (computed independently with a Python brute force of objective (1)).
  CHECK(optimal_gamma(0.8, ChainLatency::constant(0.05, 1, 32)).gamma == 8);
  CHECK(optimal_gamma(0.9, ChainLatency::constant(0.1, 1, 32)).gamma == 10);
  CHECK(optimal_gamma(0.95, ChainLatency::constant(0.02, 1, 32)).gamma == 31);
  CHECK(optimal_gamma(0.5, ChainLatency::constant(0.1, 1, 32)).gamma == 2);
  // SD does not pay when the draft costs more than its accepted tokens are worth (a < c at gamma 1).
  CHECK(optimal_gamma(0.3, ChainLatency::constant(0.4, 1, 32)).gamma == 0);
}

TEST_CASE("engine latencies: chain draft time grows with gamma, tree algorithms are rejected", "[window]") {
  const models::ConfigRegistry reg;
  const auto engine = roofline::make_analytic_engine(reg.hardware("a100-80gb"));
  models::Workload w;
  w.target = reg.model("llama-3.1-8b-instruct");
  w.algorithm = std::make_shared<models::AlgorithmSpec>(reg.algorithm("eagle3-chain"));
  const auto lat = ChainLatency::from_engine(*engine, w, 1024, 12);
  REQUIRE(lat.gamma_max() == 12);
  CHECK(lat.draft_s(0) == 0.0);
  for (int g = 1; g <= 12; ++g) {
    CHECK(lat.draft_s(g) > lat.draft_s(g - 1));
    CHECK(lat.verify_s(g) >= lat.verify_s(0));
  }
  CHECK(lat.cost_ratio() > 0.0);
  CHECK(lat.cost_ratio() < 1.0);
  const auto best = optimal_gamma(0.8, lat);
  CHECK(best.gamma >= 1);
  CHECK(best.tokens_per_s > chain_tokens_per_s(0.8, 0, lat));

  w.algorithm = std::make_shared<models::AlgorithmSpec>(reg.algorithm("eagle3-tree"));
  CHECK_THROWS_AS(ChainLatency::from_engine(*engine, w, 1024, 12), models::InputError);
}

TEST_CASE("window rejects bad accuracy and window limits", "[window]") {
  CHECK_THROWS_AS(require_accuracy("--alpha", 0.0), models::InputError);
  CHECK_THROWS_AS(require_accuracy("--alpha", 1.0), models::InputError);
  CHECK_THROWS_AS(require_accuracy("--alpha", std::nan("")), models::InputError);
  CHECK_THROWS_AS(ChainLatency::constant(0.1, 1, 0), models::InputError);
  CHECK_THROWS_AS(ChainLatency::constant(-0.1, 1, 4), models::InputError);
}

TEST_CASE("specdse window CLI: per-gamma table, best marked once, bad input exits 2", "[window][cli]") {
  using window_test::run_cli;
  const auto ok = run_cli("window --alpha 0.8 --cost-ratio 0.05 --gamma-max 10 --format csv");
  REQUIRE(ok.exit_code == 0);
  CHECK(ok.output.rfind("cost_ratio,alpha,gamma,expected_tokens,t_draft_s,t_verify_s,t_iteration_s,tokens_per_s,speedup,best", 0) == 0);
  std::size_t yes = 0, pos = 0;
  while ((pos = ok.output.find(",yes", pos)) != std::string::npos) ++yes, ++pos;
  CHECK(yes == 1);
  const auto yes_at = ok.output.find(",yes");
  const auto line_start = ok.output.rfind('\n', yes_at) + 1;
  CHECK(ok.output.substr(line_start, 11) == "0.05,0.8,8,");  // gamma* = 8 is the marked row

  // A best gamma on --gamma-max is flagged: gamma* = 8 above, so a limit of 4 cuts it off, 10 does not.
  CHECK(ok.output.find("At search limit") == std::string::npos);
  const auto cut = run_cli("window --alpha 0.8 --cost-ratio 0.05 --gamma-max 4");
  REQUIRE(cut.exit_code == 0);
  CHECK(cut.output.find("At search limit: a best gamma equals --gamma-max (4)") != std::string::npos);
  const auto map = run_cli("window --alpha 0.8 --cost-ratio 0.05,0.5 --gamma-max 4 --map --format csv");
  REQUIRE(map.exit_code == 0);
  CHECK(map.output.find(",at_search_limit\n") != std::string::npos);
  CHECK(map.output.find(",4,") != std::string::npos);
  CHECK(map.output.find(",yes\n") != std::string::npos);

  const auto engine = run_cli("window --hw a100-80gb --model llama-3.1-8b-instruct --draft eagle3-chain "
                              "--context 1024 --alpha 0.8 --format json");
  CHECK(engine.exit_code == 0);
  CHECK(engine.output.find("\"tokens_per_s\"") != std::string::npos);

  for (const char* bad : {"window --alpha 1.2 --cost-ratio 0.1", "window --alpha 0 --cost-ratio 0.1",
                          "window --alpha 0.5 --cost-ratio 0.1 --gamma-max 0",
                          "window --alpha 0.5",  // neither mode
                          "window --alpha 0.5 --hw a100-80gb --model llama-3.1-8b-instruct --draft eagle3-tree "
                          "--context 1024"}) {
    const auto r = run_cli(bad);
    INFO(bad << " -> " << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("error") != std::string::npos);
  }
}
