// Chain traces drawn from the acceptance process (what `policies --acceptance BAND` replays): the
// untruncated runs agree with the process's exact chain expectation, and they come in stretches.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "search/acceptance/process_chain_trace.hpp"

using search::AcceptanceProcess;

namespace {
AcceptanceProcess bursty() {
  search::AcceptanceProcessParams p;
  p.alpha_easy = 0.9;
  p.alpha_hard = 0.2;
  p.easy_share = 0.6;
  p.persistence = 0.85;
  p.confidence = search::DraftConfidence::calibrated;
  return AcceptanceProcess(p, "bursty");
}
}  // namespace

TEST_CASE("Process chain trace: the mean run is the process's exact chain expectation") {
  const std::string dir = models::ConfigRegistry::default_config_dir();
  const auto band = search::resolve_process_band("duodecoding-paper003", dir);
  for (const AcceptanceProcess& process :
       {bursty(), AcceptanceProcess::independent(0.7), AcceptanceProcess(band.central().params, band.name)}) {
    const auto trace = search::generate_process_chain_trace(process, 200000, 3);
    INFO(process.source());
    REQUIRE(trace.iterations.size() == 200000);
    // E[tokens per call] of a chain long enough never to cut a run = 1 + E[run]; runs in stretches
    // are a noisy mean (seeds spread about 2 % at this length).
    CHECK(trace.mean_matched() == Approx(process.chain_tpc(64) - 1).epsilon(0.03));
    CHECK(!trace.has_cache_flags);
  }
}

TEST_CASE("Process chain trace: runs follow each other in stretches, deterministically for a seed") {
  const auto trace = search::generate_process_chain_trace(bursty(), 40000, 5);
  // Lag-1 correlation of the runs' lengths: positive for a persistent process, ~0 for independent.
  const auto lag1 = [](const search::ChainTrace& t) {
    double mean = t.mean_matched(), num = 0, den = 0;
    for (std::size_t i = 0; i < t.iterations.size(); ++i) {
      const double d = t.iterations[i].matched - mean;
      den += d * d;
      if (i) num += d * (t.iterations[i - 1].matched - mean);
    }
    return num / den;
  };
  CHECK(lag1(trace) > 0.1);
  CHECK(std::abs(lag1(search::generate_process_chain_trace(AcceptanceProcess::independent(0.7), 40000, 5))) < 0.03);
  const auto again = search::generate_process_chain_trace(bursty(), 40000, 5);
  bool same = true;
  for (std::size_t i = 0; i < trace.iterations.size(); ++i) same = same && trace.iterations[i].matched == again.iterations[i].matched;
  CHECK(same);
  CHECK_THROWS_AS(search::generate_process_chain_trace(bursty(), 0, 1), models::InputError);
}
