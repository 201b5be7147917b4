// `specdse golden` warns when its CPU config is not this host's calibration: the kernels run here,
// so another machine's config would make the error a comparison of two machines.
#include <catch2/catch.hpp>

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "experiments/cli/host_calibration_check.hpp"
#include "sim/golden/golden_host_calibration.hpp"
#include "sim/golden/golden_suite.hpp"
#include "models/config_registry.hpp"
#include "models/yaml_reader.hpp"

using experiments::foreign_host_warning;

namespace {

// xeon-16c's config with its core count set to `cores`, read from `first_line` + the config
// written at `path` (or in memory under `label` when path is empty).
models::HardwareSpec cpu_config(int cores, const std::string& first_line, const std::filesystem::path& path,
                                const std::string& label = "") {
  const models::ConfigRegistry reg;
  std::ifstream in(reg.path("hardware", "xeon-16c"));
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const auto at = yaml.find("cores: 16");
  REQUIRE(at != std::string::npos);
  yaml.replace(at, 9, "cores: " + std::to_string(cores));
  if (path.empty()) return models::load_hardware(models::YamlReader::from_node(YAML::Load(yaml), label));
  std::ofstream(path) << first_line << "\n" << yaml;
  return models::load_hardware(path.string());
}

}  // namespace

TEST_CASE("golden's host check: this host's calibration passes, any other CPU config is named with why") {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string header = "# Host CPU calibrated by `specdse calibrate-host` (some CPU).";
  // Calibrated in this run (in memory, no file) or by calibrate-host, on a machine of this core count.
  CHECK(foreign_host_warning(cpu_config(8, "", {}, experiments::kCalibratedInThisRun), 8).empty());
  const auto stored = dir / "specdse_test_host_check_stored.yaml";
  CHECK(foreign_host_warning(cpu_config(8, header, stored), 8).empty());
  // The same file read on a machine with other cores was calibrated elsewhere.
  const std::string elsewhere = foreign_host_warning(cpu_config(8, header, stored), 2);
  CHECK_THAT(elsewhere, Catch::Contains("(8 cores) is not a calibration of this host (2 cores), calibrated on "
                                        "another machine") && Catch::Contains("specdse calibrate-host"));
  // A shipped config of another machine (no calibrate-host header) is never this host's.
  const auto shipped = dir / "specdse_test_host_check_shipped.yaml";
  const std::string other = foreign_host_warning(cpu_config(8, "# a Xeon's datasheet figures", shipped), 8);
  CHECK_THAT(other, Catch::Contains("is not a calibration of this host (8 cores):"));
  CHECK(other.find("calibrated on another machine") == std::string::npos);
  // Any other in-memory source is not a calibration made in this run.
  CHECK_FALSE(foreign_host_warning(cpu_config(8, "", {}, "a dict"), 8).empty());
  std::filesystem::remove(stored);
  std::filesystem::remove(shipped);
}

TEST_CASE("calibrate-host's YAML loads back with every figure it measured, both attention rates included") {
  sim::HostCalibration c;
  c.cores = 2, c.threads = 2, c.clock_ghz = 2.1, c.simd_flops_per_cycle = 32, c.l2_kib_per_core = 512, c.l3_mib = 32;
  c.bandwidth_gbs = 48, c.gemm_stream_gbs = 16, c.gemm_short_rows_max_k = 1016, c.gemm_short_rows_stream_gbs = 23;
  c.gemm_gflops = 83, c.compute_efficiency = 0.62, c.op_overhead_us = 21;
  c.attention_gflops = 23, c.attention_compute_efficiency = 0.17;
  c.attention_extra_row_gflops = 59, c.attention_extra_row_compute_efficiency = 0.44;
  c.attention_extra_row_score_ns = 0.9;
  c.cpu_model = "some CPU";
  const auto hw = models::load_hardware(models::YamlReader::from_node(YAML::Load(c.to_yaml("host")), "calibration"));
  REQUIRE(hw.cpu);
  CHECK(hw.cpu->gemm_short_rows_max_k == 1016);
  CHECK(hw.cpu->attention_compute_efficiency == Approx(0.17).epsilon(1e-3));
  CHECK(hw.cpu->attention_extra_row_compute_efficiency == Approx(0.44).epsilon(1e-3));
  CHECK(hw.cpu->attention_extra_row_score_ns == Approx(0.9).epsilon(1e-3));
  // No later-row rate measured (the 16-row probe no slower than its first rows): no key, one rate.
  c.attention_extra_row_gflops = c.attention_extra_row_compute_efficiency = 0;
  const auto one = models::load_hardware(models::YamlReader::from_node(YAML::Load(c.to_yaml("host")), "calibration"));
  CHECK(one.cpu->attention_extra_row_compute_efficiency == 0);
  CHECK(one.cpu->attention_extra_row_score_ns == 0);
}

TEST_CASE("the golden predicts its attention harness as one parallel region, as the attention probe was timed") {
  sim::HostCalibration c;
  c.cores = 2, c.threads = 2, c.clock_ghz = 2.0, c.simd_flops_per_cycle = 32, c.l2_kib_per_core = 512, c.l3_mib = 32;
  c.bandwidth_gbs = 48, c.gemm_stream_gbs = 16, c.gemm_gflops = 83, c.compute_efficiency = 0.62;
  c.op_overhead_us = 20;
  c.attention_gflops = 25.6, c.attention_compute_efficiency = 25.6 / (2 * 32 * 2.0);
  c.cpu_model = "some CPU";
  const auto hw = models::load_hardware(models::YamlReader::from_node(YAML::Load(c.to_yaml("host")), "calibration"));
  // calibrate-host's one-row probe: 16 heads of 128 (4 KV heads) over 1024 keys, one query row.
  sim::GoldenShape probe;
  probe.kernel = "decode_attention", probe.m = 1, probe.n = 1024, probe.k = 128, probe.heads = 16, probe.kv_heads = 4;
  double flops = 0;
  for (const auto& op : sim::golden_attention_ops(probe, 4.0)) flops += op.flops;
  std::vector<sim::GoldenRow> rows(1);
  rows[0].shape = probe;
  sim::predict_cpu_golden(rows, hw);
  // The rate was derived as FLOPs over (time - one fork/join): the model gives that time back
  // (not two more fork/joins for the softmax and PV ops an engine would run apart).
  CHECK(rows[0].predicted_s == Approx(flops / (c.attention_gflops * 1e9) + 20e-6).epsilon(0.01));
}
