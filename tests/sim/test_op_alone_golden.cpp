// Operators timed alone from PyTorch next to the GPU kernel model plus a harness cost measured on
// the same file (sim/golden/op_alone_golden.hpp): LLMCompass's published A100 figures (a GPT-3
// 175B layer, TP-4 shard, and its calibration sweeps; configs/reference/llmcompass_a100_gpt3_ops.csv)
// and the same layer on a lent H200 (cuda/op_by_op_layer.py, two runs, 2026-11-27).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/system_spec.hpp"
#include "sim/golden/op_alone_golden.hpp"
#include "tests/sim/golden_files.hpp"

namespace {

const std::string kLlmCompass =
    (std::filesystem::path(models::ConfigRegistry::default_config_dir()) / "reference" / "llmcompass_a100_gpt3_ops.csv")
        .string();

std::string h200_run(int run) {
  return golden_files::measured("h200_op_by_op_layer_2026-11-27_run" + std::to_string(run) + ".csv");
}

// A layer phase's rows summed; it holds the layer's ten compute ops (plus two all-reduces where given).
sim::SetTotal layer(const sim::OpAloneGolden& g, const std::string& set, bool with_all_reduce) {
  const sim::SetTotal total = g.set_total(set, with_all_reduce);
  REQUIRE(total.rows >= 10);
  return total;
}

sim::OpAloneGolden a100() {
  const models::ConfigRegistry reg;
  static const models::SystemSpec system = models::load_system(reg.path("systems", "hgx-a100-4gpu-nvlink"), reg);
  return sim::compare_ops_timed_alone(kLlmCompass, reg.hardware("a100-80gb"), &system);
}

std::string temp_csv(const std::string& body) {
  static int n = 0;
  const auto p = std::filesystem::temp_directory_path() / ("specdse_op_alone_" + std::to_string(n++) + ".csv");
  std::ofstream(p) << body;
  return p.string();
}

}  // namespace

TEST_CASE("op alone golden: LLMCompass's A100 GPT-3 layer within 15 %, decode and prefill, with and without all-reduce") {
  const auto g = a100();
  for (const std::string set : {"decode", "prefill"})
    for (bool ar : {false, true}) {
      const auto s = layer(g, set, ar);
      INFO(set << (ar ? " with" : " without") << " all-reduce: measured " << s.measured_s * 1e3 << " ms, predicted "
               << s.predicted_s * 1e3 << " ms (" << s.error_pct() << " %)");
      CHECK(std::abs(s.error_pct()) < 15.0);
    }
  // The published layer sums this comparison covers: 1.059 ms and 60.97 ms without the all-reduces.
  CHECK(layer(g, "decode", false).measured_s == Approx(1.059e-3).epsilon(0.002));
  CHECK(layer(g, "prefill", false).measured_s == Approx(60.97e-3).epsilon(0.002));
}

TEST_CASE("op alone golden: the harness of each class is measured on its shortest calibration op") {
  const auto g = a100();
  REQUIRE(g.harness.size() == 4);  // matmul, softmax, layernorm, gelu
  int calibration_rows = 0;
  for (const auto& r : g.rows) {
    if (!r.calibration) continue;
    ++calibration_rows;
    CHECK(r.set == "alone");
    CHECK(r.error_pct() == Approx(0).margin(1e-9));  // in-sample by construction
    for (const auto& o : g.rows)  // no op of its class has shorter modelled kernels
      if (o.set == "alone" && (o.kind == r.kind || (r.kind == "gemm" && o.kind == "bmm")))
        CHECK(o.kernel_s >= r.kernel_s);
  }
  CHECK(calibration_rows == 4);
  for (const auto& [c, h] : g.harness) {
    INFO(c);
    CHECK(h.seconds_per_call > 0);
    CHECK(h.seconds_per_call < 100e-6);  // a Python op call and a synchronisation: tens of microseconds
    bool measured_on_a_calibration_row = false;
    for (const auto& r : g.rows) measured_on_a_calibration_row |= r.calibration && r.op == h.op;
    CHECK(measured_on_a_calibration_row);
  }
  for (const auto& r : g.rows)  // every prediction adds its class's harness once per call
    if (r.kind != "allreduce") CHECK(r.predicted_s == Approx(r.count * (r.kernel_s + r.harness_s)));
}

TEST_CASE("op alone golden: a100-80gb's tensor_efficiency is the median of LLMCompass's seven largest GEMMs") {
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("a100-80gb");
  std::vector<double> fractions;
  for (const auto& r : a100().rows) {
    const bool large = r.kind == "gemm" && r.set == "alone" &&
                       ((r.n == 12288 && r.k == 12288 && r.m >= 4096) || (r.m == 8192 && r.n == r.k && r.n >= 8192));
    if (large) fractions.push_back(2.0 * r.m * r.n * r.k / r.measured_s / (hw.gpu->tensor_tflops_fp16 * 1e12));
  }
  REQUIRE(fractions.size() == 7);
  std::sort(fractions.begin(), fractions.end());
  CHECK(hw.gpu->tensor_efficiency == Approx(fractions[3]).margin(0.005));
}

TEST_CASE("op alone golden: NCCL's all-reduce on four NVLink A100s, 128 MiB and up within 12 %, mid sizes a known failure") {
  for (const auto& r : a100().rows) {
    if (r.kind != "allreduce" || r.set != "alone") continue;
    const double bytes = 2.0 * r.m * r.n;
    INFO(bytes << " bytes: measured " << r.measured_s * 1e6 << " us, predicted " << r.predicted_s * 1e6 << " us");
    CHECK(r.harness_s == 0);
    if (bytes >= 128.0 * (1 << 20)) CHECK(std::abs(r.error_pct()) < 12.0);
    // Known failure (docs/gpu-model.md): 128 KiB - 8 MiB run 30-55 % faster in the model than
    // measured; NCCL's protocol switch and per-channel setup are not modelled.
    if (bytes >= 128.0 * 1024 && bytes <= 8.0 * (1 << 20)) CHECK(r.error_pct() < -25.0);
    CHECK(r.error_pct() < 0);  // never slower than measured at any size
  }
}

TEST_CASE("op alone golden: the GPT-3 layer on a lent H200, two runs, within 15 % (harness measured per run)") {
  const models::ConfigRegistry reg;
  for (int run : {1, 2}) {
    const auto g = sim::compare_ops_timed_alone(h200_run(run), reg.hardware("h200"), nullptr);
    CHECK(g.skipped_all_reduces == 0);
    for (const std::string set : {"decode", "prefill"}) {
      const auto s = layer(g, set, false);
      INFO("run " << run << " " << set << ": measured " << s.measured_s * 1e3 << " ms, predicted " << s.predicted_s * 1e3
                  << " ms (" << s.error_pct() << " %)");
      CHECK(std::abs(s.error_pct()) < 15.0);
    }
  }
}

TEST_CASE("op alone golden: bad files give one-line errors naming the file and line") {
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h200");
  const auto error = [&](const std::string& body) {
    try {
      sim::compare_ops_timed_alone(temp_csv(body), hw, nullptr);
    } catch (const models::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string header = "set,op,kind,m,n,k,batch,count,measured_s\n";
  CHECK_THAT(error(header + "alone,x,conv,1,1,1,1,1,1e-5\n"), Catch::Contains(":2: kind: expected gemm"));
  CHECK_THAT(error(header + "alone,x,gemm,1,1,0,1,1,1e-5\n"), Catch::Contains("k >= 1 for gemm"));
  CHECK_THAT(error(header + "alone,x,gemm,1,1,1,1,1,nan\n"), Catch::Contains("measured_s > 0"));
  CHECK_THAT(error(header + "alone,x,gemm,1,1,1,1,1,-1\n"), Catch::Contains("measured_s > 0"));
  CHECK_THAT(error(header + "alone,x,gemm,1,1,1,1,1\n"), Catch::Contains("expected set,op,kind"));
  CHECK_THAT(error(header + "alone,x,gemm,1099511627777,1,1,1,1,1e-5\n"), Catch::Contains("below 2^40"));
  CHECK_THAT(error(header + "alone,x,allreduce,1,8,1,1,1,1e-5\n"), Catch::Contains("k >= 2 ranks"));
  CHECK_THAT(error(header), Catch::Contains("no operator rows"));
  CHECK_THAT(error(""), Catch::Contains("empty: expected the header"));
  CHECK_THAT(error("kernel,m,n,k,measured_s\n"), Catch::Contains("header: expected set,op,kind"));
  // An all-reduce over more ranks than the system has.
  const models::SystemSpec system = models::load_system(reg.path("systems", "hgx-a100-4gpu-nvlink"), reg);
  CHECK_THROWS_WITH(sim::compare_ops_timed_alone(temp_csv(header + "alone,x,allreduce,1,8,8,1,1,1e-5\n"),
                                                 reg.hardware("a100-80gb"), &system),
                    Catch::Contains("8 ranks, but system 'hgx-a100-4gpu-nvlink' has 4 devices"));
  // Without a system the all-reduce rows are counted, not costed.
  const auto g = sim::compare_ops_timed_alone(kLlmCompass, reg.hardware("a100-80gb"), nullptr);
  CHECK(g.skipped_all_reduces == 36);  // 32 in the sweep, 2 per layer phase
  CHECK_THROWS_WITH(sim::compare_ops_timed_alone(kLlmCompass, reg.hardware("xeon-16c"), nullptr),
                    Catch::Contains("is not a GPU"));
}
