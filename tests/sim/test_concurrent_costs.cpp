// SystemCosts::concurrent_s: co-located streams on one device. On a GPU the multi-stream
// SystemC model (each stream slower than alone, all faster than in series, as run_gpu_streams
// and the lent H100's two-stream measurements say); on a CPU the streams in series.
#include <catch2/catch.hpp>

#include <filesystem>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "sim/golden/gpu_golden_compare.hpp"
#include "sim/gpu/gpu_streams.hpp"
#include "sim/system/system_costs.hpp"
#include "tests/sim/golden_files.hpp"

namespace {

// A one-device system holding `hw` (no links: co-located work needs none).
models::SystemSpec one_device(const models::HardwareSpec& hw) {
  models::SystemSpec s;
  s.name = "one-" + hw.name;
  s.devices.push_back({hw.name, hw.name, hw});
  return s;
}

// The shape the golden comparison gives a verify step of x tokens (models::verify_graph).
sim::ForwardShape verify_shape(const models::HardwareSpec& hw, int x, long long context, int batch) {
  return {x, context, batch, x > 1 ? models::MaskKind::tree : models::MaskKind::causal, hw.verify_includes_lm_head};
}

// The shipped measurements of the lent H100 (cuda/run_goldens.sh), as tests/sim/test_golden_kernels.cpp reads them.
using golden_files::measured;

}  // namespace

TEST_CASE("concurrent_s: two identical verify steps on an H100 are each slower than alone and faster than in series") {
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h100-sxm");
  sim::SystemCosts costs(one_device(hw), "roofline");
  const int id = costs.add_model(reg.model("llama-3.1-8b-instruct"));
  const sim::Work step{id, verify_shape(hw, 16, 4096, 1), 1};
  const double alone = costs.concurrent_s(0, {step}).at(0);
  const auto both = costs.concurrent_s(0, {step, step});
  REQUIRE(both.size() == 2);
  for (double t : both) {
    CHECK(t > alone * 1.01);
    CHECK(t < 2 * alone);  // in series the second would end at 2 x alone
  }
  // What the multi-stream model gives directly.
  const auto graph = models::build_verify_graph(reg.model("llama-3.1-8b-instruct"), {16, 4096, 1, models::MaskKind::tree,
                                                                                      hw.verify_includes_lm_head});
  const auto direct = sim::run_gpu_streams(hw, {{"a", graph, 0}, {"b", graph, 0}}, sim::SimMode::event_driven);
  CHECK(both[0] == Approx(direct[0].end_s).epsilon(1e-12));
  CHECK(both[1] == Approx(direct[1].end_s).epsilon(1e-12));
  // Memoised: asking again costs no evaluation.
  const long long evals = costs.evaluations();
  CHECK(costs.concurrent_s(0, {step, step}) == both);
  CHECK(costs.evaluations() == evals);
  // A stream of k repeats: k graphs back to back.
  const double three = costs.concurrent_s(0, {{id, step.shape, 3}}).at(0);
  CHECK(three == Approx(3 * alone).epsilon(0.02));
}

// Its own test case (its own process): an exception thrown after SystemC has switched coroutine
// stacks in a process trips ASan's known false positive (see .ci/run), so the bad calls come
// before any simulation here.
TEST_CASE("concurrent_s: zero repeats and an unknown device are input errors") {
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h100-sxm");
  sim::SystemCosts costs(one_device(hw), "roofline");
  const int id = costs.add_model(reg.model("llama-3.1-8b-instruct"));
  const sim::Work step{id, verify_shape(hw, 16, 4096, 1), 1};
  CHECK_THROWS_AS(costs.concurrent_s(0, {{id, step.shape, 0}}), models::InputError);
  CHECK_THROWS_AS(costs.concurrent_s(3, {step}), models::InputError);
}

TEST_CASE("concurrent_s: two streams on an H100 agree with the measured two-stream rows") {
  const models::ConfigRegistry reg;
  auto hw = reg.hardware("h100-sxm");
  hw.stack = models::SoftwareStack{};  // the measurements replay CUDA graphs, as the golden comparison models them
  const auto rows = sim::compare_gpu_contention(measured("h100_sxm_torch_contention_2026-11-26.csv"), hw, reg);
  REQUIRE(rows.size() % 2 == 0);
  sim::SystemCosts costs(one_device(hw), "roofline");
  for (std::size_t i = 0; i + 1 < rows.size(); i += 2) {
    std::vector<sim::Work> works;
    for (std::size_t j = i; j < i + 2; ++j)
      works.push_back({costs.add_model(reg.model(rows[j].model)), verify_shape(hw, rows[j].x, rows[j].context, rows[j].batch), 1});
    const auto together = costs.concurrent_s(0, works);
    for (std::size_t j = 0; j < 2; ++j) {
      const auto& r = rows[i + j];
      const double alone = costs.concurrent_s(0, {works[j]}).at(0);
      CHECK(together[j] == Approx(r.predicted_together_s).epsilon(1e-9));
      // The target's slowdown within the golden test's 5 % of the measured one.
      if (r.stream == "target") CHECK(together[j] / alone == Approx(r.slowdown()).epsilon(0.05));
      CHECK(together[j] > alone);
    }
  }
}

TEST_CASE("concurrent_s: a CPU has no multi-stream model and serves the streams in series") {
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("xeon-16c");
  sim::SystemCosts costs(one_device(hw), "roofline");
  const int id = costs.add_model(reg.model("llama-68m"));
  const sim::ForwardShape pass{1, 256, 1, models::MaskKind::causal, true};
  const double one = costs.forward_s(0, id, pass);
  const auto ends = costs.concurrent_s(0, {{id, pass, 2}, {id, pass, 1}});
  REQUIRE(ends.size() == 2);
  CHECK(ends[0] == Approx(2 * one));
  CHECK(ends[1] == Approx(3 * one));
}

TEST_CASE("SystemCosts: devices of one devices entry share an engine and a memo and other entries do not") {
  const models::ConfigRegistry reg;
  const auto gpu = reg.hardware("rtx3090");
  const auto other = reg.hardware("l40");
  models::SystemSpec s;
  s.name = "classes";
  s.devices.push_back({"gpu0", "gpu", gpu});
  s.devices.push_back({"gpu1", "gpu", gpu});
  s.devices.push_back({"spare", "spare", gpu});  // the same board in another entry: its own class
  s.devices.push_back({"l40", "l40", other});
  auto with_stack = gpu;
  with_stack.stack.name = "another-stack";
  s.devices.push_back({"gpu2", "gpu", with_stack});  // same entry, another stack: its own class
  sim::SystemCosts costs(s, "sim");
  CHECK(costs.device_class(0) == 0);
  CHECK(costs.device_class(1) == 0);
  CHECK(costs.device_class(2) == 2);
  CHECK(costs.device_class(3) == 3);
  CHECK(costs.device_class(4) == 4);
  CHECK(&costs.engine(0) == &costs.engine(1));
  CHECK(&costs.engine(0) != &costs.engine(2));
  CHECK_THROWS_AS(costs.device_class(5), models::InputError);
  const int id = costs.add_model(reg.model("llama-3.2-1b"));
  const sim::ForwardShape shape{4, 1024, 1, models::MaskKind::tree, true};
  const double t0 = costs.forward_s(0, id, shape);
  CHECK(costs.evaluations() == 1);
  CHECK(costs.forward_s(1, id, shape) == t0);  // gpu1: the memo's answer, no second simulation
  CHECK(costs.evaluations() == 1);
  CHECK(costs.forward_s(2, id, shape) == t0);  // the same board simulates to the same time
  CHECK(costs.evaluations() == 2);
}
