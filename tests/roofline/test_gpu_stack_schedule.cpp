// The analytic GPU engine charges the device's software stack by the SystemC host thread's rules
// (roofline/gpu_stream_schedule.hpp): the same launch plan, a host that never waits on the
// device, a stream that runs one kernel at a time. Under the bare stack a step is its kernels'
// sum; under an eager stack it is launch-bound; across engines the same stack gives the same
// step within what cycle-level simulation adds.
#include <catch2/catch.hpp>

#include <string>

#include "models/config_registry.hpp"
#include "models/engine_registry.hpp"
#include "models/software_stack.hpp"
#include "roofline/gpu_launch_plan.hpp"
#include "roofline/gpu_roofline.hpp"
#include "roofline/gpu_stream_schedule.hpp"
#include "tests/test_workload.hpp"

using test_support::workload;

namespace {

models::SoftwareStack stack(const std::string& name) {
  const models::ConfigRegistry reg;
  return models::load_software_stack(reg.path("stacks", name));
}

// A workload of two kernels with hand-picked host times before each.
roofline::GpuWorkload two_kernels(const roofline::GpuKernelModel& model, std::int64_t host0, std::int64_t host1,
                                  std::int64_t host_after) {
  roofline::GpuWorkload w;
  w.kernels.push_back(model.memory_kernel("a", 64.0 * 1024 * 1024, 0));
  w.kernels.push_back(model.memory_kernel("b", 1024.0, 0));
  roofline::StreamPlan p;
  p.launches.push_back({0, 0, 0, host0});
  p.launches.push_back({1, 1, 0, host1});
  p.host_after_cycles = host_after;
  w.streams.push_back(p);
  return w;
}

}  // namespace

TEST_CASE("closed-form schedule: a kernel starts when it is enqueued and the previous one is done") {
  const models::ConfigRegistry reg;
  const roofline::GpuKernelModel model(*reg.hardware("h100-sxm").gpu);
  const std::int64_t ta = model.time(model.memory_kernel("a", 64.0 * 1024 * 1024, 0)).total_cycles;
  const std::int64_t tb = model.time(model.memory_kernel("b", 1024.0, 0)).total_cycles;
  REQUIRE(ta > 1000);

  SECTION("device-bound: the second launch waits for the first kernel") {
    const auto run = roofline::run_closed_form(model, two_kernels(model, 100, 10, 0));
    CHECK(run.streams[0][0].start == 100);
    CHECK(run.streams[0][1].enqueue == 110);
    CHECK(run.streams[0][1].start == 100 + ta);
    CHECK(run.end_cycle == 100 + ta + tb);
  }
  SECTION("host-bound: the stream runs dry and waits for the host") {
    const auto run = roofline::run_closed_form(model, two_kernels(model, 0, ta + 5000, 0));
    CHECK(run.streams[0][1].start == ta + 5000);
    CHECK(run.end_cycle == ta + 5000 + tb);
  }
  SECTION("host work after the last launch ends the step where it outlasts the device") {
    const auto run = roofline::run_closed_form(model, two_kernels(model, 0, 0, ta + tb + 777));
    CHECK(run.end_cycle == ta + tb + 777);
    const auto shorter = roofline::run_closed_form(model, two_kernels(model, 0, 0, 1));
    CHECK(shorter.end_cycle == ta + tb);
  }
  SECTION("two streams are refused: the closed form has no model of their sharing") {
    auto w = two_kernels(model, 0, 0, 0);
    w.streams.push_back(w.streams.front());
    CHECK_THROWS_AS(roofline::run_closed_form(model, w), std::invalid_argument);
  }
}

TEST_CASE("GPU roofline: the bare stack's step is its kernels' closed-form sum") {
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h100-sxm");
  REQUIRE(hw.stack.name == "bare");
  const roofline::GpuRooflineEngine engine(hw);
  const auto g = models::verify_graph(engine, workload("llama-3.1-8b-instruct"), 8, 2048);
  std::int64_t sum = 0;
  for (const auto& op : g.layer_ops) sum += engine.op_cost(op, g.batch).cycles * g.layer_count;
  for (const auto& op : g.tail_ops) sum += engine.op_cost(op, g.batch).cycles;
  CHECK(engine.step(g, false).cycles == sum);
}

TEST_CASE("GPU roofline: a launch-bound step costs at least the host's own time") {
  const models::ConfigRegistry reg;
  models::HardwareSpec hw = reg.hardware("h100-sxm");
  hw.stack = stack("huggingface-transformers");
  const roofline::GpuRooflineEngine engine(hw);
  const auto g = models::verify_graph(engine, workload("llama-68m"), 1, 256);
  roofline::GpuWorkload work;
  const auto plan = roofline::lower_step(engine.kernel_model(), hw.stack, hw.host, g, "step", 0, work);
  std::int64_t host = 0;
  for (const auto& l : plan.launches) host += l.host_cycles_before;
  const std::int64_t step = engine.step(g, false).cycles;
  CHECK(step >= host + plan.host_after_cycles);
  // A 2-layer 68M model: the host, not the GPU, sets the step (kernels are a few us each).
  CHECK(double(step) < 1.2 * double(host + plan.host_after_cycles + engine.kernel_model().time(work.kernels.back()).total_cycles));
}
