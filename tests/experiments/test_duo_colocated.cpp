// DuoDecoding with the draft on the target's GPU: the two models run as two CUDA streams that
// contend for the SMs and DRAM (sim::SystemCosts::concurrent_s), so an iteration takes less than
// the two in series and more than the target alone; with the draft on the CPU nothing changes.
#include <catch2/catch.hpp>

#include "tests/experiments/cli_run.hpp"

#include <string>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "search/scenarios/duodecoding/duo_scenario.hpp"

using namespace search::duodecoding;

namespace {

const std::string kCmd = "duo --system duodecoding-a800-xeon --model llama-2-7b --draft llama-68m --alpha 0.6 "
                         "--tokens 128 --format csv --draft-device ";

// The CLI's request for `kCmd` (calibrated generator, dynamic sequences, seed 1).
DuoReport report(const std::string& draft_device) {
  DuoNames n;
  n.system = "duodecoding-a800-xeon";
  n.model = "llama-2-7b";
  n.draft = "llama-68m";
  n.draft_device = draft_device;
  n.tokens = 128;
  DuoRequest q = make_duo_request(models::ConfigRegistry(), n);
  q.stream = PositionStream::calibrated(0.6, kGeneratorTopK, 1);
  q.policy = parse_sequences("dynamic", 4);  // the command's default
  return run_duo_scenario(q);
}

// Sums over DuoDecoding's iterations of the target's alone forward and the draft's alone passes.
std::pair<double, double> alone_sums(const DuoReport& rep, const DuoCosts& c) {
  double target = 0, draft = 0;
  long long generated = 0;
  for (const auto& it : rep.duo.plan.iterations) {
    target += c.target_forward_at(it.x, generated);
    draft += it.draft_passes * c.draft_pass_at(generated);
    generated += it.gained;
  }
  return {target, draft};
}

double duo_iteration_s(const std::string& csv_text) {
  const auto rows = cli_test::csv(csv_text);
  const std::size_t col = cli_test::column(rows.at(0), "iteration_s");
  for (const auto& r : rows)
    if (r.at(0) == "DuoDecoding") return std::stod(r.at(col));
  FAIL("no DuoDecoding row");
  return 0;
}

}  // namespace

TEST_CASE("duo --draft-device gpu: an iteration overlaps the two streams, never faster than the target alone") {
  const models::ConfigRegistry reg;
  DuoNames n;
  n.system = "duodecoding-a800-xeon";
  n.model = "llama-2-7b";
  n.draft = "llama-68m";
  n.draft_device = "gpu";
  n.tokens = 128;
  const DuoRequest q = make_duo_request(reg, n);
  REQUIRE(q.costs.co_located());
  const DuoReport rep = report("gpu");
  const auto [target, draft] = alone_sums(rep, q.costs);
  const double iterations = double(rep.duo.plan.iterations.size());
  REQUIRE(iterations > 0);
  CHECK(rep.duo.seconds < 0.9 * (target + draft));  // in series (one FIFO GPU) it took the sum
  // The target's eager stream is launch-bound on the A800 (pytorch-eager: 16 us of host time per
  // kernel, measured on the lent H100's host): the draft's kernels run in the GPU's idle gaps, so
  // they need not slow it (here they fit its gaps entirely: the same time to rounding), but
  // contention never speeds it.
  CHECK(rep.duo.seconds >= target * (1 - 1e-9));
  long long generated = 0;
  for (std::size_t i = 0; i < rep.duo.timing.size(); ++i) {
    const auto& it = rep.duo.plan.iterations[i];
    const double alone = q.costs.target_forward_at(it.x, generated);
    if (it.draft_passes > 0) CHECK(rep.duo.timing[i].target_s >= alone);
    CHECK(rep.duo.timing[i].iteration_s < alone + it.draft_passes * q.costs.draft_pass_at(generated) + 1e-12);
    generated += it.gained;
  }
  // The shared GPU is busy whenever either stream is: never more than the run.
  CHECK(rep.duo.target_idle_fraction >= 0);
  CHECK(rep.duo.target_idle_fraction < 0.5);

  // The command reports the same iteration.
  const auto r = cli_test::run(kCmd + "gpu", false);
  REQUIRE(r.status == 0);
  CHECK(duo_iteration_s(r.output) == Approx(rep.duo.mean_iteration_s).epsilon(1e-3));
  CHECK(duo_iteration_s(r.output) < (target + draft) / iterations);
  CHECK(duo_iteration_s(r.output) >= target / iterations * (1 - 1e-3));  // the printed digits
}

TEST_CASE("duo --draft-device cpu: no co-located streams, the target's forwards take their alone times") {
  const models::ConfigRegistry reg;
  DuoNames n;
  n.system = "duodecoding-a800-xeon";
  n.model = "llama-2-7b";
  n.draft = "llama-68m";
  n.draft_device = "cpu";
  n.tokens = 128;
  const DuoRequest q = make_duo_request(reg, n);
  CHECK_FALSE(q.costs.co_located());
  CHECK_THROWS_AS(q.costs.co_located_at(1, 4, 0), models::InputError);
  const DuoReport rep = report("cpu");
  long long generated = 0;
  for (std::size_t i = 0; i < rep.duo.timing.size(); ++i) {
    const auto& it = rep.duo.plan.iterations[i];
    CHECK(rep.duo.timing[i].target_s == q.costs.target_forward_at(it.x, generated));
    CHECK(rep.duo.timing[i].draft_s == it.draft_passes * q.costs.draft_pass_at(generated));
    generated += it.gained;
  }
}
