// The optimiser's bounded x search (OptimizeOptions::full_curve = false): on an engine whose T_v
// never falls as x grows it evaluates T_v only where x can still be the best, and must report
// exactly the best, AD, naive and original points of the full curve.
#include <catch2/catch.hpp>

#include "models/config_registry.hpp"
#include "roofline/analytic_engine.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/optimizer.hpp"
#include "sim/sim_engine.hpp"

#include <algorithm>

using namespace models;

namespace {

search::AatSource longspec_aat(const ConfigRegistry& reg, long long context) {
  const auto data = search::AcceptanceData::load(reg.dir() + "/acceptance/aat_measurements.csv");
  search::AatQuery q;
  q.algorithm = "longspec-tree";
  q.target_model = "llama-3.1-8b-instruct";
  q.task = "govreport";
  q.source_table = "t3-4";
  q.context = context;
  return search::AatSource::from_measurements(data.select(q), "test");
}

Workload longspec_workload(const ConfigRegistry& reg) {
  Workload w;
  w.target = reg.model("llama-3.1-8b-instruct");
  w.algorithm = std::make_shared<AlgorithmSpec>(reg.algorithm("longspec-tree"));
  return w;
}

void check_same_point(const roofline::PerfPoint& a, const roofline::PerfPoint& b) {
  CHECK(a.x == b.x);
  CHECK(a.aat == b.aat);
  CHECK(a.t_verify_s == b.t_verify_s);
  CHECK(a.t_draft_s == b.t_draft_s);
}

}  // namespace

TEST_CASE("Bounded x search on the FPGA sim finds the full curve's best, AD, naive and original points") {
  const ConfigRegistry reg;
  const Workload w = longspec_workload(reg);
  for (const char* board : {"v80", "u250"}) {
    const auto engine = sim::make_fpga_sim_engine(reg.hardware(board), sim::SimMode::event_driven);
    REQUIRE(engine->verify_time_non_decreasing_in_x());
    for (long long L : {1024LL, 16384LL})
      for (bool measured_only : {false, true}) {
        INFO(board << " L=" << L << " measured_only=" << measured_only);
        const auto aat = longspec_aat(reg, L);
        search::OptimizeOptions full;
        full.measured_x_only = measured_only;
        full.original_x = 69;
        search::OptimizeOptions bounded = full;
        bounded.full_curve = false;
        const auto a = search::optimize_context(*engine, w, L, aat, full);
        const auto b = search::optimize_context(*engine, w, L, aat, bounded);
        check_same_point(a.best, b.best);
        check_same_point(a.ar, b.ar);
        check_same_point(a.naive, b.naive);
        check_same_point(*a.original, *b.original);
        CHECK(a.ridge_x.has_value());
        CHECK_FALSE(b.ridge_x.has_value());
        CHECK_FALSE(b.regime.has_value());
        // It skipped x, and every point it kept is the full curve's point at that x.
        CHECK(b.curve.size() < a.curve.size());
        if (!measured_only) CHECK(b.curve.size() * 2 < a.curve.size());
        for (const auto& p : b.curve) {
          const auto it = std::find_if(a.curve.begin(), a.curve.end(), [&](const auto& q) { return q.x == p.x; });
          REQUIRE(it != a.curve.end());
          check_same_point(*it, p);
        }
        // No skipped x beats the best.
        for (const auto& p : a.curve) CHECK(p.p_eff() <= b.best.p_eff());
      }
  }
}

TEST_CASE("Bounded x search falls back to every x on an engine that does not promise T_v non-decreasing in x") {
  const ConfigRegistry reg;
  const Workload w = longspec_workload(reg);
  const auto engine = roofline::make_analytic_engine(reg.hardware("h100-sxm"));
  REQUIRE_FALSE(engine->verify_time_non_decreasing_in_x());
  const auto aat = longspec_aat(reg, 4096);
  search::OptimizeOptions bounded;
  bounded.full_curve = false;
  const auto a = search::optimize_context(*engine, w, 4096, aat, search::OptimizeOptions{});
  const auto b = search::optimize_context(*engine, w, 4096, aat, bounded);
  CHECK(b.curve.size() == a.curve.size());
  REQUIRE(b.ridge_x.has_value());
  CHECK(*b.ridge_x == *a.ridge_x);
  check_same_point(a.best, b.best);
}

TEST_CASE("a best x on the largest measured x is flagged as the edge of the data and others are not") {
  search::AatSource aat;
  aat.measured = {{2, 1.6}, {10, 3.0}, {20, 3.4}};
  CHECK(search::measured_edge_note(aat, 20).find("x = 20: the largest measured x") == 0);
  CHECK(search::measured_edge_note(aat, 24).find("x = 20") == 0);  // beyond it: extrapolated
  CHECK(search::measured_edge_note(aat, 19).empty());
  search::AatSource one;
  one.measured = {{8, 2.5}};
  CHECK(search::measured_edge_note(one, 8).empty());  // one point is no range to be on the edge of
}
