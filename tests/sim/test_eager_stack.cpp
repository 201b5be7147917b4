// The eager PyTorch stack (configs/stacks/pytorch-eager.yaml) as it runs: the extra kernels it
// launches per decoder layer, its host dispatch per kernel, and the SystemC GPU model's eager
// step next to the eager steps measured on the lent H100 (cuda/torch_decode_step.py).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/engine_registry.hpp"
#include "models/software_stack.hpp"
#include "sim/gpu/gpu_launch_plan.hpp"
#include "sim/golden/gpu_golden_compare.hpp"
#include "tests/test_workload.hpp"
#include "tests/sim/golden_files.hpp"

using test_support::workload;

namespace {

using golden_files::measured;

// A stack file in a config tree of its own (stacks/NAME.yaml) with `body` after the required keys.
std::string stack_file(const std::string& name, const std::string& body) {
  const auto dir = std::filesystem::temp_directory_path() / "specdse_test_eager_stack" / "stacks";
  std::filesystem::create_directories(dir);
  const auto path = (dir / (name + ".yaml")).string();
  std::ofstream(path) << "name: " << name << "\nkernel_launch_host_us: 10\nper_layer_host_us: 0\n"
                      << "per_step_host_us: 0\ncuda_graphs: false\nruntime_reserve_gib: 0\n"
                      << body;
  return path;
}

models::SoftwareStack stack(const std::string& name) {
  const models::ConfigRegistry reg;
  return models::load_software_stack(reg.path("stacks", name));
}

using Key = std::tuple<std::string, int, int, long long>;
Key key_of(const sim::EagerStepGoldenRow& r) { return {r.model, r.batch, r.x, r.context}; }

}  // namespace

TEST_CASE("eager stack: extra kernels are parsed, validated and absent from the fused stacks") {
  const auto eager = stack("pytorch-eager");
  REQUIRE(!eager.layer_kernels.empty());
  int per_layer = 0, masked = 0;
  for (const auto& k : eager.layer_kernels) (k.masked_attention_only ? masked : per_layer) += k.kernels;
  CHECK(per_layer == 17);  // 26 per layer measured at x = 1, batch 1 less the fused set's 9
  CHECK(masked == 4);
  for (const char* fused : {"vllm-cuda-graph", "llama-cpp"}) {
    CHECK(stack(fused).layer_kernels.empty());
    CHECK(stack(fused).step_kernels.empty());
  }

  const auto ok = models::load_software_stack(stack_file(
      "ok", "extra_kernels:\n  per_layer:\n    - {name: a, kernels: 2, tensor: q, passes: 4}\n"
            "  per_step:\n    - {name: b, kernels: 1, tensor: vocab, passes: 2, masked_attention_only: true}\n"));
  REQUIRE(ok.layer_kernels.size() == 1);
  CHECK(ok.layer_kernels[0].tensor == models::StackTensor::q);
  CHECK(ok.layer_kernels[0].kernels == 2);
  REQUIRE(ok.step_kernels.size() == 1);
  CHECK(ok.step_kernels[0].masked_attention_only);

  const auto refused = [](const std::string& name, const std::string& body, const std::string& says) {
    try {
      models::load_software_stack(stack_file(name, body));
      FAIL("expected an error for " << name);
    } catch (const models::InputError& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(says) != std::string::npos);
    }
  };
  refused("unknown_key", "extra_kernels:\n  per_layer:\n    - {name: a, kernels: 1, tensor: q, passes: 1, bytes: 3}\n",
          "bytes");
  refused("duplicate", "extra_kernels:\n  per_layer:\n    - {name: a, kernels: 1, tensor: q, passes: 1}\n"
                       "  per_step:\n    - {name: a, kernels: 1, tensor: q, passes: 1}\n",
          "'a' again");
  refused("tensor", "extra_kernels:\n  per_layer:\n    - {name: a, kernels: 1, tensor: logits, passes: 1}\n", "tensor");
  refused("zero", "extra_kernels:\n  per_layer:\n    - {name: a, kernels: 0, tensor: q, passes: 1}\n", "kernels");
  refused("negative", "extra_kernels:\n  per_layer:\n    - {name: a, kernels: 1, tensor: q, passes: -1}\n", "passes");
  refused("section", "extra_kernels:\n  per_token:\n    - {name: a, kernels: 1, tensor: q, passes: 1}\n", "per_token");
  refused("empty", "extra_kernels: {}\n", "per_layer");
}

TEST_CASE("eager stack: kernel_launch_host_us is the median its YAML comment says it was taken from") {
  // (eager_s - 32 x per_layer_host_us) / kernels over the host-bound rows (graph_s < 0.8 eager_s)
  // of the first H100 run, without batch 64 x = 4 at context 1024 (an eager time twice its repeat's).
  const auto eager = stack("pytorch-eager");
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h100-sxm");
  std::vector<double> per_kernel_us;
  for (const auto& r : sim::compare_gpu_steps(measured("h100_sxm_torch_step_llama-3.1-8b_2026-11-26.csv"), hw, reg)) {
    if (!(r.graph_s < 0.8 * r.eager_s) || (r.batch == 64 && r.x == 4 && r.context == 1024)) continue;
    per_kernel_us.push_back((r.eager_s * 1e6 - 32 * eager.per_layer_host_us) / double(r.measured_kernels));
  }
  REQUIRE(per_kernel_us.size() == 21);
  std::sort(per_kernel_us.begin(), per_kernel_us.end());
  CHECK(eager.kernel_launch_host_us == Approx(per_kernel_us[10]).margin(0.1));
}

TEST_CASE("eager stack: the eager step launches the measured number of kernels within 5 %") {
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h100-sxm");
  const auto eager = stack("pytorch-eager");
  int rows = 0;
  for (const char* file : {"h100_sxm_torch_step_llama-3.1-8b_2026-11-26.csv",
                           "h100_sxm_torch_step_llama-3.1-8b_2026-11-26_repeat.csv",
                           "h100_sxm_torch_step_llama-3.2-1b_2026-11-26.csv"}) {
    for (const auto& r : sim::compare_gpu_eager_steps(measured(file), hw, eager, reg)) {
      ++rows;
      INFO(file << ": " << r.model << " batch " << r.batch << " x " << r.x << " context " << r.context << ": "
                << r.model_kernels << " kernels, measured " << r.measured_kernels);
      REQUIRE(r.measured_kernels > 0);
      // Known: cuBLAS and SDPA pick kernels by the token count M = batch x x, and the measured
      // count moves with it where the stack's per-layer set is fixed: M = 256 launches 29 per
      // layer (931; 1B: 467) and M >= 4096 launches 33 (1059) where the stack launches 31.
      const long long m = (long long)r.batch * r.x;
      if (r.x > 1 && (m == 256 || m >= 4096))
        CHECK(std::abs(r.kernel_error_pct()) < 7.0);
      else
        CHECK(std::abs(r.kernel_error_pct()) < 5.0);
    }
  }
  CHECK(rows == 36 + 40 + 4);
}

TEST_CASE("eager stack: the SystemC eager step is within 15 % of the H100's measured eager steps") {
  // Measured: the lower of the two H100 runs per point (each is already the minimum of 10 timed
  // steps; the lower one is the same estimator over both), the Llama-3.1-8B rows that fit 80 GB
  // (36) and the Llama-3.2-1B rows (4).
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h100-sxm");
  const auto eager = stack("pytorch-eager");
  std::map<Key, sim::EagerStepGoldenRow> best;
  for (const char* file : {"h100_sxm_torch_step_llama-3.1-8b_2026-11-26.csv",
                           "h100_sxm_torch_step_llama-3.1-8b_2026-11-26_repeat.csv",
                           "h100_sxm_torch_step_llama-3.2-1b_2026-11-26.csv"})
    for (const auto& r : sim::compare_gpu_eager_steps(measured(file), hw, eager, reg)) {
      auto [it, fresh] = best.emplace(key_of(r), r);
      if (!fresh && r.eager_s < it->second.eager_s) it->second = r;
    }
  REQUIRE(best.size() == 40);
  int within = 0;
  for (const auto& [key, r] : best) {
    INFO(r.model << " batch " << r.batch << " x " << r.x << " context " << r.context << ": predicted "
                 << r.predicted_s << " s, measured " << r.eager_s << " s, error " << r.error_pct() << " %");
    if (r.batch == 1 && r.x == 1 && r.context == 1024) {
      // Known failure: plain decoding at batch 1, context 1024 ran its host at ~12 us per kernel
      // on the lent H100 (both models, both runs) where every other point ran at ~16: the model
      // is 38 % (8B) and 38-44 % (1B) slow there.
      CHECK(r.error_pct() > 15.0);
      CHECK(r.error_pct() < 45.0);
    } else if (r.batch == 64 && r.x == 16 && r.context == 4096) {
      // Known failure: GPU-bound, and PyTorch's masked memory-efficient attention over 4096 keys
      // is slower than the split attention the GPU model times (its CUDA-graph step is 23 %
      // fast already): 15.6 % fast.
      CHECK(r.error_pct() < -15.0);
      CHECK(r.error_pct() > -20.0);
    } else {
      CHECK(std::abs(r.error_pct()) < 15.0);
      ++within;
    }
  }
  CHECK(within == 37);
}

TEST_CASE("eager stack: a launch-bound eager step leaves the GPU idle, a CUDA-graph step does not") {
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h100-sxm");
  const auto rows =
      sim::compare_gpu_eager_steps(measured("h100_sxm_torch_step_llama-3.1-8b_2026-11-26.csv"), hw, stack("pytorch-eager"), reg);
  const auto graph = sim::compare_gpu_eager_steps(measured("h100_sxm_torch_step_llama-3.1-8b_2026-11-26.csv"), hw,
                                                  stack("vllm-cuda-graph"), reg);
  REQUIRE(rows.size() == graph.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    INFO("batch " << r.batch << " x " << r.x << " context " << r.context);
    CHECK(r.device_busy_s > 0);
    CHECK(r.device_busy_s <= r.predicted_s * (1 + 1e-9));
    if (r.batch == 1 && r.x == 4) {
      // Launch-bound: ~990 kernels at 16 us of host time each against ~9 ms of GPU work.
      CHECK(r.device_busy_s < 0.6 * r.predicted_s);
    }
    // A captured graph has its kernels in the queue at once: the GPU idles only for the launch.
    CHECK(graph[i].device_idle_s() < 0.02 * graph[i].predicted_s);
    CHECK(graph[i].model_kernels < r.model_kernels);
  }
}

TEST_CASE("eager stack: both engines time the eager step from host launches and GPU work") {
  const models::ConfigRegistry reg;
  models::HardwareSpec bare = reg.hardware("h100-sxm");
  models::HardwareSpec eager = bare;
  eager.stack = stack("pytorch-eager");
  const auto w = workload("llama-3.1-8b-instruct");
  const auto sim_bare = models::make_engine("sim", bare);
  const auto sim_eager = models::make_engine("sim", eager);
  const auto g = models::verify_graph(*sim_bare, w, 4, 1024);
  // Launch-bound: the step is at least the host's own time, every kernel and layer dispatched.
  const roofline::GpuKernelModel model(*bare.gpu);
  sim::GpuWorkload work;
  const auto plan = sim::lower_step(model, eager.stack, eager.host, g, "step", 0, work);
  const double host_s = (eager.stack.per_step_host_us + eager.stack.per_layer_host_us * g.layer_count +
                         eager.stack.kernel_launch_host_us * double(plan.launches.size())) *
                        1e-6;
  const double t_eager = sim_eager->step(g).seconds;
  CHECK(t_eager > host_s);
  CHECK(t_eager < host_s + 0.1 * sim_bare->step(g).seconds);
  // The breakdown names the stack's extra kernels as a row of their own.
  const auto cost = sim_eager->step(g, true);
  CHECK(std::any_of(cost.ops.begin(), cost.ops.end(),
                    [](const models::OpCost& c) { return c.op == "layer_extra_kernels (pytorch-eager)"; }));
  // A plain decoding step launches none of the masked-attention-only kernels.
  const auto g1 = models::verify_graph(*sim_bare, w, 1, 1024);
  int masked = 0;
  for (const auto& k : eager.stack.layer_kernels) masked += k.masked_attention_only ? k.kernels : 0;
  CHECK(sim::stack_kernels(model, eager.stack.layer_kernels, g).size() -
            sim::stack_kernels(model, eager.stack.layer_kernels, g1).size() ==
        std::size_t(masked));
  // The analytic engine runs the same host program (roofline/gpu_stream_schedule.hpp): it is
  // launch-bound too, at least the host's own time, and within a few per cent of the SystemC
  // engine (the host's time is the same; only the kernels' simulated tails differ).
  const double r_eager = models::make_engine("roofline", eager)->step(g).seconds;
  const double r_bare = models::make_engine("roofline", bare)->step(g).seconds;
  CHECK(r_eager > host_s);
  CHECK(r_eager > 1.5 * r_bare);
  CHECK(r_eager == Approx(t_eager).epsilon(0.05));
  const auto r_cost = models::make_engine("roofline", eager)->step(g, true);
  CHECK(std::any_of(r_cost.ops.begin(), r_cost.ops.end(),
                    [](const models::OpCost& c) { return c.op == "layer_extra_kernels (pytorch-eager)"; }));
}

TEST_CASE("eager stack: extra kernels move their tensors' bytes through DRAM") {
  const models::ConfigRegistry reg;
  const auto hw = reg.hardware("h100-sxm");
  const roofline::GpuKernelModel model(*hw.gpu);
  const auto eager = stack("pytorch-eager");
  const auto e = models::make_engine("sim", hw);
  const auto w = workload("llama-3.1-8b-instruct");
  const auto small = models::verify_graph(*e, w, 4, 1024);
  auto big_w = w;
  big_w.batch = 64;
  const auto big = models::verify_graph(*e, big_w, 4, 1024);
  double small_bytes = 0, big_bytes = 0;
  for (const auto& k : sim::stack_kernels(model, eager.layer_kernels, small)) small_bytes += k.dram_bytes;
  for (const auto& k : sim::stack_kernels(model, eager.layer_kernels, big)) big_bytes += k.dram_bytes;
  // Per-token tensors scale with the batch; the attention mask is shared by the batch.
  CHECK(small_bytes > 0);
  CHECK(big_bytes > 50 * small_bytes);
  CHECK(big_bytes < 64 * small_bytes);
}
