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

TEST_CASE("calibrate-host's figures come back from probe times the model predicts for them") {
  // A host with known figures; its probes' times as the model gives them; the figures solved back.
  sim::HostCalibration truth;
  truth.cores = 2, truth.threads = 2, truth.clock_ghz = 2.0, truth.simd_flops_per_cycle = 32;
  truth.l2_kib_per_core = 512, truth.l3_mib = 32, truth.gemm_short_rows_max_k = 0;
  truth.op_overhead_us = 20, truth.bandwidth_gbs = 48, truth.gemm_stream_gbs = 16, truth.gemm_gflops = 83;
  truth.compute_efficiency = 83.0 / (2 * 32 * 2.0);
  truth.attention_gflops = 25.6, truth.attention_compute_efficiency = 25.6 / (2 * 32 * 2.0);
  truth.attention_extra_row_gflops = 70.4, truth.attention_extra_row_compute_efficiency = 70.4 / (2 * 32 * 2.0);
  truth.attention_extra_row_score_ns = 1.2;
  truth.cpu_model = "some CPU";
  const auto hw = models::load_hardware(models::YamlReader::from_node(YAML::Load(truth.to_yaml("host")), "truth"));
  auto probe_s = [&](std::int64_t rows, std::int64_t head_size) {
    std::vector<sim::GoldenRow> r(1);
    r[0].shape.kernel = "decode_attention", r[0].shape.m = rows, r[0].shape.n = 1024, r[0].shape.k = head_size;
    r[0].shape.heads = 16, r[0].shape.kv_heads = 4;
    sim::predict_cpu_golden(r, hw);
    return r[0].predicted_s;
  };
  sim::HostProbeTimes t;
  t.fork_join_s = 20e-6;
  const double fp32 = 4.0;
  t.stream_s = t.fork_join_s + 8192.0 * 4096 * fp32 / 48e9;  // the 128 MiB GEMV
  t.flop_s = t.fork_join_s + 2560.0 * 1536 * fp32 / 16e9 + 2.0 * 192 * 2560 * 1536 / 83e9;
  t.pack_s = t.fork_join_s + 8192.0 * 4096 * fp32 / 16e9 + 2.0 * 2 * 8192 * 4096 / 83e9;
  t.attention_s = probe_s(1, 128);
  t.attention_rows_s = probe_s(16, 128);
  t.attention_narrow_rows_s = probe_s(16, 32);
  sim::HostCalibration host = truth;  // what the OS gives: cores, threads, clock, caches
  const sim::HostCalibration got = sim::derive_host_figures(host, t);
  CHECK(got.op_overhead_us == Approx(20).epsilon(1e-6));
  CHECK(got.bandwidth_gbs == Approx(48).epsilon(1e-3));
  CHECK(got.gemm_stream_gbs == Approx(16).epsilon(1e-3));
  CHECK(got.gemm_gflops == Approx(83).epsilon(1e-3));
  CHECK(got.attention_gflops == Approx(25.6).epsilon(0.01));
  CHECK(got.attention_extra_row_gflops == Approx(70.4).epsilon(0.01));
  CHECK(got.attention_extra_row_score_ns == Approx(1.2).epsilon(0.01));
  // Without a cost per score the two head sizes' later rows share one rate: the rate alone.
  truth.attention_extra_row_score_ns = 0;
  const auto flat = models::load_hardware(models::YamlReader::from_node(YAML::Load(truth.to_yaml("host")), "flat"));
  std::vector<sim::GoldenRow> r(2);
  for (int i = 0; i < 2; ++i) {
    r[i].shape.kernel = "decode_attention", r[i].shape.m = 16, r[i].shape.n = 1024, r[i].shape.k = i ? 32 : 128;
    r[i].shape.heads = 16, r[i].shape.kv_heads = 4;
  }
  sim::predict_cpu_golden(r, flat);
  t.attention_rows_s = r[0].predicted_s, t.attention_narrow_rows_s = r[1].predicted_s;
  const sim::HostCalibration got_flat = sim::derive_host_figures(host, t);
  CHECK(got_flat.attention_extra_row_gflops == Approx(70.4).epsilon(0.01));
  CHECK(got_flat.attention_extra_row_score_ns < 1e-3);  // zero up to the model's whole cycles
}
