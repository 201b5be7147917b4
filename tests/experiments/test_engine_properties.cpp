// Properties every latency engine must keep on every shipped device, over seeded random workloads
// (a property test: it drives the engines themselves, where the parsers' fuzz targets do not reach):
// each time finite and positive; more memory bandwidth or more compute never slower; a longer
// context, more verified tokens, a larger batch or more layers never faster.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "experiments/sweep/sweep_runner.hpp"
#include "models/config_registry.hpp"
#include "models/engine_registry.hpp"
#include "models/latency_engine.hpp"

namespace {

// The key that scales a kind's compute alone: the GPU's tensor peak, the FPGA's clock (its memory
// bandwidth is stated in GB/s, not per cycle), the CPU's clock.
std::pair<std::string, double> compute_key(const models::HardwareSpec& hw) {
  if (hw.kind == "gpu") return {"tensor_tflops_fp16", hw.gpu->tensor_tflops_fp16};
  if (hw.kind == "fpga") return {"clock_mhz", hw.fpga->clock_mhz};
  return {"clock_ghz", hw.cpu->clock_ghz};
}

struct Case {
  int x;
  long long context;
  int batch;
};

// Seeded draws over the ranges the commands accept for one device.
std::vector<Case> draws(std::uint64_t seed, int n) {
  std::mt19937_64 rng(seed);
  std::vector<Case> out;
  for (int i = 0; i < n; ++i) {
    const int x = 1 + int(rng() % 64);
    const long long context = 16 + (long long)(rng() % 16384);
    const int batch = 1 << int(rng() % 4);
    out.push_back({x, context, batch});
  }
  return out;
}

void check_properties(const std::string& hardware, const std::string& engine_name, int cases) {
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware(hardware);
  const auto faster_hw = experiments::load_hardware_with_overrides(
      reg.path("hardware", hardware),
      {{"memory.bandwidth_gbs", std::to_string(2 * hw.peak_bandwidth_bytes() / 1e9)}}, "property test");
  const auto [key, value] = compute_key(hw);
  const auto stronger_hw = experiments::load_hardware_with_overrides(reg.path("hardware", hardware),
                                                                     {{key, std::to_string(2 * value)}}, "property test");
  const auto engine = models::make_engine(engine_name, hw);
  const auto faster = models::make_engine(engine_name, faster_hw);
  const auto stronger = models::make_engine(engine_name, stronger_hw);
  auto w = experiments::make_workload(reg, "llama-3.2-1b", "");
  for (const auto& c : draws(std::hash<std::string>{}(hardware + engine_name), cases)) {
    w.batch = c.batch;
    INFO(hardware << " " << engine_name << " x " << c.x << " context " << c.context << " batch " << c.batch);
    const double t = models::t_verify(*engine, w, c.x, c.context);
    REQUIRE(std::isfinite(t));
    REQUIRE(t > 0);
    // A relative slack for the engines' own rounding (cycles, tiles): never a real speed-up.
    const double slack = 1 + 1e-9;
    CHECK(models::t_verify(*faster, w, c.x, c.context) <= t * slack);
    CHECK(models::t_verify(*stronger, w, c.x, c.context) <= t * slack);
    CHECK(models::t_verify(*engine, w, c.x, c.context * 2) * slack >= t);
    CHECK(models::t_verify(*engine, w, c.x + 1, c.context) * slack >= t);
    auto wider = w;
    wider.batch = c.batch * 2;
    CHECK(models::t_verify(*engine, wider, c.x, c.context) * slack >= t);
    auto deeper = w;
    deeper.target.layers += 4;
    CHECK(models::t_verify(*engine, deeper, c.x, c.context) * slack >= t);
  }
}

}  // namespace

TEST_CASE("engine properties: roofline on every shipped device") {
  for (const char* hw : {"a100-80gb", "a800", "h100-sxm", "h200", "l40", "rtx3090", "rtx4090", "v100", "u250", "u280",
                         "v80", "vhk158", "xeon-16c"})
    check_properties(hw, "roofline", 40);
}

TEST_CASE("engine properties: SystemC engine on one device of each kind") {
  for (const char* hw : {"h100-sxm", "v80", "xeon-16c"}) check_properties(hw, "sim", 6);
}
