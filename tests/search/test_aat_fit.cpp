#include <catch2/catch.hpp>

#include <cmath>

#include "models/config_error.hpp"
#include "search/acceptance/aat_fit.hpp"

using namespace search;

TEST_CASE("Ceres recovers A, B, C from exact log data") {
  std::vector<AatPoint> pts;
  for (int x : {2, 3, 5, 8, 13, 21, 34, 55, 85}) pts.push_back({double(x), 1.4 + 0.8 * std::log(x - 0.5)});
  const AatFit f = fit_aat(pts);
  CHECK(f.a == Approx(1.4).margin(1e-4));
  CHECK(f.b == Approx(0.8).margin(1e-4));
  CHECK(f.c == Approx(0.5).margin(1e-3));
  CHECK(f.r2 > 0.999999);
  CHECK(f.rmse < 1e-6);
  CHECK(f.n == 9);
}

TEST_CASE("Fitted curve keeps AAT(1) = 1 and 1 <= AAT(x) <= x") {
  std::vector<AatPoint> pts{{1, 1}, {2, 1.8}, {4, 2.6}, {8, 3.3}, {16, 3.9}, {64, 4.9}};
  const AatFit f = fit_aat(pts);
  CHECK(f(1) == 1.0);
  for (double x = 1; x <= 200; x += 0.5) {
    CHECK(f(x) >= 1.0);
    CHECK(f(x) <= x);
    CHECK(std::isfinite(f(x)));
  }
  CHECK(f.c < 1.0);  // C < min x
}

TEST_CASE("A fit with fewer than three distinct x is refused with a clear message") {
  std::vector<AatPoint> pts{{2, 1.8}, {2, 1.9}, {4, 2.5}};
  try {
    fit_aat(pts, "data.csv: ctx 128");
    FAIL("expected InputError");
  } catch (const models::InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("data.csv: ctx 128") && Catch::Contains("3 distinct x"));
  }
  CHECK_THROWS_AS(fit_aat({{2, NAN}, {3, 2}, {4, 2.5}}), models::InputError);
}

TEST_CASE("Noisy, flat or odd data still gives finite parameters") {
  std::vector<AatPoint> flat{{2, 2}, {3, 2}, {4, 2}, {5, 2}};
  const AatFit f = fit_aat(flat);
  CHECK(std::isfinite(f.a));
  CHECK(std::isfinite(f.b));
  CHECK(std::isfinite(f.c));
  CHECK(std::isfinite(f.r2));
}

TEST_CASE("AAT is defined between 1 and C: 1 there, never NaN, and the invariants hold everywhere") {
  // Exact log data with C = 3 and no point below x = 4: the fitted C lies above 1, where
  // ln(x - C) is undefined for 1 < x <= C.
  std::vector<AatPoint> pts;
  for (int x : {4, 5, 6, 8, 12, 20, 40, 80}) pts.push_back({double(x), 1.2 + 0.7 * std::log(x - 3.0)});
  const AatFit f = fit_aat(pts);
  REQUIRE(f.c > 1.5);
  CHECK_FALSE(f.c_at_bound);
  CHECK(f(1) == 1.0);
  CHECK(f(1.5) == 1.0);
  CHECK(f(f.c) == 1.0);
  double previous = 1.0;
  for (double x = 1; x <= 100; x += 0.25) {
    const double v = f(x);
    INFO("x = " << x);
    CHECK(std::isfinite(v));
    CHECK(v >= 1.0);
    CHECK(v <= x);
    CHECK(v >= previous);  // monotone (B > 0)
    CHECK(std::isfinite(f.slope(x)));
    previous = v;
  }
  CHECK(f.slope(2) == 0.0);  // flat where the curve is clamped to 1
  CHECK(std::isnan(f(NAN)) == false);
}

TEST_CASE("A fit that stops on the bound C = min x is flagged") {
  // With the AD anchor (1, 1) and AAT jumping to a plateau of 3 at x = 2, the least-squares
  // optimum wants the log's pole at x = 1 (a step): C stops on its bound.
  const AatFit steep = fit_aat({{1, 1}, {2, 3}, {3, 3}, {4, 3}, {6, 3}, {8, 3}});
  CHECK(steep.c_at_bound);
  CHECK(steep.c == Approx(1.0).margin(1e-6));
  CHECK(std::isfinite(steep(1.5)));
  // The paper's shape (gentle rise from the anchor) is a free optimum.
  const AatFit gentle = fit_aat({{1, 1}, {2, 1.8}, {4, 2.6}, {8, 3.3}, {16, 3.9}, {64, 4.9}});
  CHECK_FALSE(gentle.c_at_bound);
}
