// The Hugging Face Transformers stack (configs/stacks/huggingface-transformers.yaml) next to
// Transformers' generate measured on lent H200s (cuda/hf_generate_step.py, four runs on three
// machines, 2026-11-27, held out; cuda/hf_host_device_overlap.py, 2026-11-29, whose narrow
// models calibrate the per-step host work).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/software_stack.hpp"
#include "sim/golden/gpu_generate_golden.hpp"
#include "sim/golden/golden_suite.hpp"
#include "sim/golden/hf_overlap_golden.hpp"
#include "sim/gpu/gpu_sim_engine.hpp"
#include "models/latency_engine.hpp"
#include "tests/sim/golden_files.hpp"

namespace {

using golden_files::measured;

std::string run_file(int run) { return measured("h200_hf_generate_2026-11-27_run" + std::to_string(run) + ".csv"); }

models::SoftwareStack hf_stack() {
  const models::ConfigRegistry reg;
  return models::load_software_stack(reg.path("stacks", "huggingface-transformers"));
}

}  // namespace

TEST_CASE("hf stack: per_step_host_us is the host-alone generate time less the step without it") {
  // Narrow models (hidden 256) of 32, 16 and 2 layers, batch 1, timed in the same rounds as the
  // published widths on a lent H200 (2026-11-29, run 2): their kernels are too short to matter, so
  // the measured token is the host program's and the per-step work is what the stack's per-kernel
  // and per-layer costs leave of it.
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h200");
  models::SoftwareStack none = hf_stack();
  const double fitted_us = none.per_step_host_us;
  none.per_step_host_us = 0;
  std::vector<double> gaps_us;
  for (const auto& r : sim::compare_gpu_host_device_overlap(measured("h200_hf_overlap_2026-11-29_run2.csv"), hw, none, reg))
    if (r.narrow && r.batch == 1) gaps_us.push_back((r.measured_s - r.predicted_s) * 1e6);
  REQUIRE(gaps_us.size() == 3);
  double sum = 0;
  for (double g : gaps_us) {
    CHECK(g > 0);
    CHECK(std::abs(g - fitted_us) < 0.5 * fitted_us);  // one per-step cost serves 2 to 32 layers
    sum += g;
  }
  CHECK(fitted_us == Approx(sum / 3).margin(10));
}

TEST_CASE("hf stack: every generate step launches the profiler's kernel count within 1 %") {
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h200");
  int rows = 0;
  for (int run = 1; run <= 4; ++run)
    for (const auto& r : sim::compare_gpu_generate_loop(run_file(run), hw, hf_stack(), reg)) {
      if (r.variant != "generate_greedy" && r.variant != "generate_sample") continue;  // hooks, bare loops
      ++rows;
      INFO("run " << run << ": " << r.model << " batch " << r.batch << ": " << r.model_kernels << " kernels, measured "
                  << r.measured_kernels);
      // 46 per layer at hidden 4096, 42 at 2048 and 768; a sampled step 63 more at batch 1 (69-71 at
      // batches 4-16, where the one figure leaves up to 9 out: within 4 % of the 68M's 197).
      CHECK(std::abs(r.kernel_error_pct()) < (r.variant == "generate_sample" && r.batch > 1 ? 4.0 : 1.0));
    }
  CHECK(rows == 8 + 10 + 4 + 2);
}

TEST_CASE("hf stack: a sampled generate step adds the sampler's kernels, and every sampled loop's error shrinks") {
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h200");
  models::SoftwareStack greedy_only = hf_stack();
  REQUIRE_FALSE(greedy_only.sampled_step_kernels.empty());
  greedy_only.sampled_step_kernels.clear();
  int rows = 0;
  for (int run = 1; run <= 2; ++run) {
    const auto with = sim::compare_gpu_generate_loop(run_file(run), hw, hf_stack(), reg);
    const auto without = sim::compare_gpu_generate_loop(run_file(run), hw, greedy_only, reg);
    REQUIRE(with.size() == without.size());
    for (std::size_t i = 0; i < with.size(); ++i) {
      const auto& r = with[i];
      INFO("run " << run << ": " << r.model << " " << r.variant << " batch " << r.batch << ": " << r.error_pct()
                  << " % against " << without[i].error_pct() << " % without the sampler's kernels");
      if (r.variant != "generate_sample") {
        CHECK(r.predicted_s == without[i].predicted_s);  // greedy steps are untouched
        continue;
      }
      ++rows;
      CHECK(r.model_kernels - without[i].model_kernels == 63);
      // The loops ran slower than predicted (host speed): the sampler's launches close part of it.
      CHECK(r.predicted_s > without[i].predicted_s);
      CHECK(std::abs(r.error_pct()) < std::abs(without[i].error_pct()));
    }
  }
  CHECK(rows == 8);
}

TEST_CASE("hf stack: held-out generate loops on other machines within 30 % (host speed), none over-charged") {
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h200");
  // The same point ran 24.5-34.0 ms on three machines (Llama-3.1-8B, batch 1): a host-bound loop
  // is as fast as the host it gets, so each point's fastest run of 2026-11-27 is compared. The
  // per-step work comes from a faster host (2026-11-29): these machines ran the same loops up to
  // 24 % slower (Llama-3.2-1B, batch 16), never faster by more than 7 %.
  using Point = std::tuple<std::string, int, long long>;
  std::map<Point, sim::GenerateGoldenRow> fastest;
  for (int run = 1; run <= 4; ++run)
    for (const auto& r : sim::compare_gpu_generate_loop(run_file(run), hw, hf_stack(), reg)) {
      if (r.variant != "generate_greedy") continue;
      const Point p{r.model, r.batch, r.context};
      if (!fastest.count(p) || r.measured_s < fastest[p].measured_s) fastest[p] = r;
    }
  REQUIRE(fastest.size() == 10);
  std::vector<double> errors;
  for (const auto& [p, r] : fastest) {
    INFO(r.model << " batch " << r.batch << " context " << r.context << ": measured " << r.measured_s << " s, predicted "
                 << r.predicted_s << " s (" << r.error_pct() << " %)");
    CHECK(r.device_idle_s() > 0.5 * r.predicted_s);  // host-bound: the GPU idles most of the step
    CHECK(r.error_pct() < 10.0);                      // the 2-layer draft included (it was +49 to +63 %)
    CHECK(r.error_pct() > -30.0);
    errors.push_back(r.error_pct());
  }
  CHECK(sim::median_abs(errors) < 16.0);
}

TEST_CASE("hf stack: the published widths on the calibration host within 10 % where its host was steady") {
  // Run 2 of 2026-11-29 timed every model of a point in the same rounds; its batch-1 rows and its
  // batch-16 pair at 4096 keys ran at the narrow models' steady host speed (its batch 4-32 rows at
  // 1024 keys ran 30-60 % slower on every model, the narrow ones too: a slower host for minutes).
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h200");
  int rows = 0;
  for (const auto& r : sim::compare_gpu_host_device_overlap(measured("h200_hf_overlap_2026-11-29_run2.csv"), hw,
                                                            hf_stack(), reg)) {
    if (r.narrow || !(r.batch == 1 || r.context == 4096)) continue;
    ++rows;
    INFO(r.model << " batch " << r.batch << " context " << r.context << ": measured " << r.measured_s << " s, predicted "
                 << r.predicted_s << " s (" << r.error_pct() << " %)");
    CHECK(std::abs(r.error_pct()) < 10.0);
    CHECK(std::abs(double(r.model_kernels) - r.measured_kernels) < 0.01 * r.measured_kernels);
  }
  CHECK(rows == 4);  // Llama-3.1-8B, -3.2-1B, -68M at batch 1; the 8B at batch 16, 4096 keys
}

TEST_CASE("hf stack: split-K reductions follow the model's width, the cache concatenation its context") {
  const auto s = hf_stack();
  int wide = 0, all = 0;
  for (const auto& k : s.layer_kernels) (k.min_hidden_size >= 4096 ? wide : all) += k.kernels;
  CHECK(all == 33);  // 42 per layer at hidden 2048 less the fused set's 9 (two for attention)
  CHECK(wide == 4);  // 46 at 4096
  const models::ConfigRegistry reg;
  models::HardwareSpec spec = reg.hardware("h200");
  spec.stack = s;
  const sim::GpuSimEngine engine(spec, sim::SimMode::event_driven);
  const sim::GpuKernelModel model(*spec.gpu);
  models::Workload w;
  w.target = reg.model("llama-3.1-8b-instruct");
  w.batch = 16;
  models::SoftwareStack without = s;
  without.layer_kernels.erase(std::remove_if(without.layer_kernels.begin(), without.layer_kernels.end(),
                                             [](const models::StackKernel& k) { return k.tensor == models::StackTensor::kv_cache; }),
                              without.layer_kernels.end());
  REQUIRE(without.layer_kernels.size() + 1 == s.layer_kernels.size());
  auto busy = [&](const models::SoftwareStack& stack, long long context) {
    return sim::run_stack_step(model, stack, models::HostSpec{}, models::verify_graph(engine, w, 1, context)).device_busy_s;
  };
  // DynamicCache's torch.cat copies each layer's whole K and V cache per token: from context 1024
  // to 16384 that is 32 layers x 4 passes x 16 x 15360 rows x 1024 values x 2 bytes more DRAM
  // traffic, which the simulated GPU streams at about its bandwidth.
  const double extra_bytes = 32.0 * 4 * 16 * 15360 * 1024 * 2;
  const double added = (busy(s, 16384) - busy(s, 1024)) - (busy(without, 16384) - busy(without, 1024));
  const double at_peak = extra_bytes / (spec.gpu->memory_bandwidth_gbs * 1e9);
  CHECK(added > at_peak);
  CHECK(added < 1.6 * at_peak);
}

TEST_CASE("hf stack: a generate CSV's errors name the file and line") {
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h200");
  const auto dir = std::filesystem::temp_directory_path() / "specdse_test_hf_generate";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& body) {
    const auto path = (dir / name).string();
    std::ofstream(path) << body;
    return path;
  };
  const std::string header = "model,variant,batch,context,new_tokens,kernels_per_token,per_token_s\n";
  auto error_of = [&](const std::string& path) {
    try {
      sim::compare_gpu_generate_loop(path, hw, hf_stack(), reg);
    } catch (const models::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of(write("bad_time.csv", header + "llama-3.2-1b,generate_greedy,1,1024,32,717,-1\n")),
             Catch::Contains("bad_time.csv:2") && Catch::Contains("per_token_s > 0"));
  CHECK_THAT(error_of(write("bad_model.csv", header + "no-such-model,generate_greedy,1,1024,32,717,0.01\n")),
             Catch::Contains("bad_model.csv:2: model"));
  CHECK_THAT(error_of(write("bad_header.csv", "model,batch,x\n")), Catch::Contains("header"));
  CHECK_THAT(error_of(write("short.csv", header + "llama-3.2-1b,generate_greedy,1\n")), Catch::Contains("short.csv:2"));
  // forward_loop rows and rows that did not run are skipped, not errors.
  CHECK(sim::compare_gpu_generate_loop(write("skip.csv", header + "llama-3.2-1b,forward_loop,1,1024,32,703,0.01\n"
                                                         "llama-3.2-1b,generate_greedy,16,1024,32,-1,oom\n"),
                                       hw, hf_stack(), reg)
            .empty());
}
