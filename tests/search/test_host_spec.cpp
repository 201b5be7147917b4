// Host CPUs (configs/hosts): the CPU that runs a stack's host work. Its dispatch_time_scale scales
// every host figure of the stack, on every engine and cost path that charges one (a one-device
// step on either GPU engine, a CPU device, a tensor-parallel system step, the EAGLE dispatcher's
// per-step host time, a staged copy), and nothing else.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/engine_registry.hpp"
#include "models/host_spec.hpp"
#include "models/software_stack.hpp"
#include "models/system_spec.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"
#include "sim/system/system_costs.hpp"
#include "sim/system/system_step.hpp"
#include "tests/test_workload.hpp"

using test_support::workload;

namespace {

std::filesystem::path temp_dir() {
  const auto dir = std::filesystem::temp_directory_path() / "specdse_test_host_spec";
  std::filesystem::create_directories(dir);
  return dir;
}

// A host file `file` with `body`, in a temporary folder.
std::string host_file(const std::string& file, const std::string& body) {
  const auto path = temp_dir() / file;
  std::ofstream(path) << body;
  return path.string();
}

models::HostSpec host_of_scale(double scale) {
  models::HostSpec h;
  h.name = "scaled";
  h.source_file = "(test)";
  h.dispatch_time_scale = scale;
  return h;
}

// The InputError loading `path` gives ("" when it loads).
std::string load_error(const std::string& path) {
  try {
    models::load_host(path);
  } catch (const models::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("host: the shipped reference host is the stacks' own (a factor of 1), and a host file is read strictly") {
  const models::ConfigRegistry reg;
  const models::HostSpec reference = models::load_host(reg.path("hosts", "reference"));
  CHECK(reference.name == "reference");
  CHECK(reference.dispatch_time_scale == 1.0);
  // A hardware config's device runs on the built-in reference host until a system or --host says.
  CHECK(reg.hardware("h200").host.dispatch_time_scale == 1.0);
  CHECK(reg.hardware("h200").host.source_file.empty());

  const auto ok = host_file("ok.yaml", "name: slow\ncpu: \"some Xeon\"\ndispatch_time_scale: 1.4\n");
  CHECK(models::load_host(ok).dispatch_time_scale == 1.4);
  CHECK(models::load_host(ok).cpu == "some Xeon");
  CHECK_THAT(load_error(host_file("zero.yaml", "name: h\ndispatch_time_scale: 0\n")),
             Catch::Contains("zero.yaml: dispatch_time_scale: expected a number > 0, got '0'"));
  CHECK_THAT(load_error(host_file("huge.yaml", "name: h\ndispatch_time_scale: 1000\n")),
             Catch::Contains("dispatch_time_scale: expected a factor in (0, 100], got 1000"));
  CHECK_THAT(load_error(host_file("missing.yaml", "name: h\n")), Catch::Contains("dispatch_time_scale"));
  CHECK_THAT(load_error(host_file("unknown.yaml", "name: h\ndispatch_time_scale: 1\nspeed: 2\n")),
             Catch::Contains("speed"));
  CHECK_THAT(load_error(host_file("empty-name.yaml", "name: ''\ndispatch_time_scale: 1\n")),
             Catch::Contains("name: expected a non-empty host name"));
}

TEST_CASE("host: a host-bound GPU step's host work scales with the host, alike on both engines, and bare kernels do not") {
  const models::ConfigRegistry reg;
  // Llama-3.2-1B at batch 1 under Hugging Face generate: host-bound (docs/gpu-model.md).
  models::HardwareSpec hf = reg.hardware("h200");
  hf.stack = models::load_software_stack(reg.path("stacks", "huggingface-transformers"));
  const auto w = workload("llama-3.2-1b");
  double t[4] = {};
  for (int s = 1; s <= 3; ++s) {
    models::HardwareSpec on = hf;
    on.host = host_of_scale(s);
    const auto sim = models::make_engine("sim", on), roofline = models::make_engine("roofline", on);
    const auto g = models::verify_graph(*sim, w, 1, 1024);
    t[s] = sim->step(g).seconds;
    CHECK(roofline->step(g).seconds == t[s]);  // one launch plan, one answer
  }
  // Host-bound: the token is the host's work (H) then the kernels still queued; each step of the
  // factor adds one H, and H is nearly the whole token.
  const double h = t[2] - t[1];
  CHECK(t[3] - t[2] == Approx(h).epsilon(1e-6));
  CHECK(h > 0.9 * t[1]);
  // The kernels alone (a bare stack) have no host work for a host to scale.
  models::HardwareSpec bare = reg.hardware("h200"), bare_slow = bare;
  bare_slow.host = host_of_scale(5);
  for (const char* engine : {"sim", "roofline"}) {
    const auto a = models::make_engine(engine, bare), b = models::make_engine(engine, bare_slow);
    const auto g = models::verify_graph(*a, w, 4, 1024);
    CHECK(a->step(g).seconds == b->step(g).seconds);
  }
}

TEST_CASE("host: a CPU device's stack host work scales with its host on both engines") {
  const models::ConfigRegistry reg;
  models::HardwareSpec cpp = reg.hardware("xeon-16c");
  cpp.stack = models::load_software_stack(reg.path("stacks", "llama-cpp"));
  models::HardwareSpec slow = cpp;
  slow.host = host_of_scale(2);
  models::HardwareSpec bare = reg.hardware("xeon-16c");
  const auto w = workload("llama-68m");
  for (const char* engine : {"sim", "roofline"}) {
    INFO(engine);
    const auto e_bare = models::make_engine(engine, bare), e_cpp = models::make_engine(engine, cpp),
               e_slow = models::make_engine(engine, slow);
    const auto g = models::verify_graph(*e_bare, w, 4, 512);
    const double host_s = e_cpp->step(g).seconds - e_bare->step(g).seconds;
    CHECK(host_s > 0);
    CHECK(e_slow->step(g).seconds - e_bare->step(g).seconds == Approx(2 * host_s).epsilon(1e-6));
  }
}

TEST_CASE("host: a system's device entry names its host, and a tensor-parallel step's host work scales with it") {
  const models::ConfigRegistry reg;
  const auto slow = host_file("slow.yaml", "name: slow\ndispatch_time_scale: 3\n");
  auto system_with = [&](const std::string& host_line) {
    const auto path = temp_dir() / "tp.yaml";
    std::ofstream(path) << "name: tp\ndevices:\n  - {name: gpu, hardware: a100-80gb, count: 4, stack: pytorch-eager"
                        << host_line << "}\nlinks:\n  - {link: nvlink3, topology: switch, devices: [gpu]}\n"
                        << "placement:\n  target: {stages: even, devices: [gpu], tensor_parallel: 4}\n"
                        << "  draft: {device: gpu0}\n";
    return models::load_system(path.string(), reg);
  };
  const models::SystemSpec reference = system_with(""), slowed = system_with(", host: " + slow);
  for (const auto& d : slowed.devices) CHECK(d.hardware.host.dispatch_time_scale == 3.0);
  CHECK(reference.devices.front().hardware.host.dispatch_time_scale == 1.0);
  const models::ModelSpec target = reg.model("llama-3.1-8b-instruct");
  for (const char* engine : {"roofline", "sim"}) {
    INFO(engine);
    auto step_s = [&](const models::SystemSpec& s) {
      models::SystemSpec placed = s;
      placed.validate_placement(target);
      const sim::SystemCosts costs(placed, engine);
      sim::SystemQuery q;
      q.target = target;
      q.context = 1024;
      return costs.system_step_times(q).step_s;
    };
    const double t1 = step_s(reference), t3 = step_s(slowed);
    CHECK(t3 > t1);
    // Without host work the host has nothing to scale.
    CHECK(step_s(sim::without_host_work(reference)) == step_s(sim::without_host_work(slowed)));
  }
  // A misspelt host names the file and the key.
  const auto path = temp_dir() / "typo.yaml";
  std::ofstream(path) << "name: tp\ndevices:\n  - {name: gpu, hardware: a100-80gb, host: nope}\n"
                      << "placement:\n  target: {stages: even, devices: [gpu]}\n";
  try {
    models::load_system(path.string(), reg);
    FAIL("a system naming an unknown host loaded");
  } catch (const models::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("unknown host 'nope'"));
  }
}

TEST_CASE("host: the EAGLE dispatcher's per-step host time and a staged copy's fixed cost scale with the host") {
  const models::ConfigRegistry reg;
  const auto inprocess = models::load_software_stack(reg.path("stacks", "vllm-v1-inprocess"));
  const double ref = search::eagle_host_seconds(inprocess, models::HostSpec{}, 4, 0, 1, -1);
  CHECK(ref > 0);
  // No device time to hide behind: every host figure (step, launches, proposer passes) doubles.
  CHECK(search::eagle_host_seconds(inprocess, host_of_scale(2), 4, 0, 1, -1) == Approx(2 * ref));
  const auto accelerate = models::load_software_stack(reg.path("stacks", "eagle-accelerate"));
  REQUIRE(accelerate.staged_device_copy);
  const auto& copy = *accelerate.staged_device_copy;
  CHECK(copy.seconds(1e6, host_of_scale(2)) - copy.seconds(1e6, models::HostSpec{}) ==
        Approx(copy.fixed_us * 1e-6));
}
