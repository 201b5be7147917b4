// GPU sim model: the behaviours papers 002 and 004 report (T_v flat while memory-bound then
// rising, 64-token steps, SD speed-up falling with batch), wave quantisation, split-K /
// flash-decoding, tree attention as prefix + suffix + merge, bandwidth scaling, occupancy and
// bad input. The SystemC model's own properties are in test_gpu_systemc.cpp.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "roofline/gpu_roofline.hpp"
#include "sim/gpu/gpu_device.hpp"
#include "sim/gpu/gpu_sim_engine.hpp"
#include "tests/test_workload.hpp"

using namespace models;
using test_support::workload;

namespace {

sim::GpuSimEngine gpu_engine(const std::string& name, sim::SimMode mode = sim::SimMode::event_driven) {
  return sim::GpuSimEngine(ConfigRegistry().hardware(name), mode);
}

// One decoder layer's time (no tail), as in paper 002 Fig. 9.
double layer_seconds(const sim::GpuSimEngine& e, const Workload& w, int x, long long context) {
  StepGraph g = verify_graph(e, w, x, context);
  g.layer_count = 1;
  g.tail_ops.clear();
  return e.step(g, false).seconds;
}

}  // namespace

TEST_CASE("gpu: T_v(x) is flat while memory-bound, then rises, and never falls") {
  const auto e = gpu_engine("h100-sxm");
  const auto w = workload("llama-3.1-8b-instruct");
  const double t1 = t_verify(e, w, 1, 2048);
  const double t2 = t_verify(e, w, 2, 2048);
  // x = 1 is plain decode (flash-decoding over the cache and the new key); from x = 2 on a tree
  // needs the masked suffix kernel too, and a merge even where the cache is not split (paper 004
  // §3.1): one or two small kernels more per layer.
  CHECK(t2 > t1);
  CHECK(t2 < 1.10 * t1);
  CHECK(t_verify(e, w, 16, 2048) < 1.05 * t2);   // weights dominate: 16 tokens cost ~ 2
  CHECK(t_verify(e, w, 512, 2048) > 1.5 * t1);   // tensor cores saturated
  double prev = 0;
  for (int x = 1; x <= 512; ++x) {
    const double t = t_verify(e, w, x, 2048);
    INFO("x = " << x);
    REQUIRE(t >= prev);
    prev = t;
  }
}

TEST_CASE("gpu: a layer's time steps every 64 tokens once compute-bound (paper 002 Fig. 9)") {
  const auto e = gpu_engine("h100-sxm");
  const auto w = workload("llama-3.1-8b-instruct");
  for (int k = 5; k <= 7; ++k) {
    const int edge = 64 * k;
    const double jump = layer_seconds(e, w, edge + 1, 2048) - layer_seconds(e, w, edge, 2048);
    const double within = layer_seconds(e, w, edge, 2048) - layer_seconds(e, w, edge - 62, 2048);
    INFO("edge " << edge << ": jump " << jump << " s, rise within the tile " << within << " s");
    CHECK(jump > 3 * within);
    CHECK(jump > 0);
  }
}

TEST_CASE("gpu: wave quantisation over SMs in the closed form and in the simulated dispatch") {
  const auto e = gpu_engine("h100-sxm");
  const auto& m = e.kernel_model();
  const int sms = m.spec().sms;
  sim::GpuKernel k = m.gemm_kernel("o_proj", 1, 4096, 4096, 1, 4096.0 * 4096 * 2, 2);
  k.cta_cycles = 1000;
  k.dram_bytes = 0;
  k.memory_cycles = 0;
  k.ctas = sms;
  const auto one = m.time(k);
  k.ctas = sms + 1;
  const auto two = m.time(k);
  CHECK(one.waves == 1);
  CHECK(two.waves == 2);
  CHECK(two.compute_cycles == 2 * one.compute_cycles);
  // The SystemC dispatcher (event-driven and clocked) reproduces the waves for a lone kernel
  // whatever the occupancy: more CTAs per SM share its tensor cores.
  for (std::int64_t ctas : {1, 7, 131, 132, 133, 264, 265, 1000}) {
    k.ctas = ctas;
    sim::GpuWorkload w;
    w.kernels = {k};
    w.streams.push_back(sim::StreamPlan{"s", 0, {sim::KernelLaunch{0, 0, 0, 0}}});
    for (auto mode : {sim::SimMode::event_driven, sim::SimMode::clocked}) {
      INFO("ctas " << ctas << (mode == sim::SimMode::clocked ? " clocked" : " event-driven"));
      CHECK(sim::run_gpu_device(m, w, mode).end_cycle == m.time(k).total_cycles);
    }
  }
}

TEST_CASE("gpu: split-K for skinny GEMMs and flash-decoding splits for long contexts") {
  const auto e = gpu_engine("h100-sxm");
  const auto& m = e.kernel_model();
  // 4096x4096 GEMV: 32 output tiles cannot fill 132 SMs without splitting K.
  const auto gemv = m.gemm_kernel("o_proj", 1, 4096, 4096, 1, 4096.0 * 4096 * 2, 2);
  CHECK(gemv.split > 1);
  // A large GEMM has output tiles enough: whatever tile and split the model picks (tiles are
  // equally efficient in it, so a split may only even out the last wave), it runs within 5 % of
  // its FLOPs at the achievable tensor rate, and its K slices stay long.
  const auto big = m.gemm_kernel("o_proj", 4096, 4096, 4096, 1, 4096.0 * 4096 * 2, 2);
  const auto& spec = m.spec();
  const double ideal_cycles = 2.0 * 4096 * 4096 * 4096 / (spec.tensor_tflops_fp16 * 1e12 * spec.tensor_efficiency) *
                              m.clock_hz();
  CHECK(double(m.time(big).total_cycles - big.launch_cycles) < 1.05 * ideal_cycles);
  CHECK(4096 / big.split >= 1024);

  auto prefix_split = [&](int batch, long long context) {
    const auto w = workload("llama-3.1-8b-instruct", batch);
    const auto g = verify_graph(e, w, 1, context);
    for (const auto& op : g.layer_ops)
      if (op.kind == OpKind::attention_qk)
        for (const auto& k : m.kernels_for(op, batch))
          if (k.name == op.name + "_prefix") return k.split;
    FAIL("no prefix kernel");
    return 0;
  };
  CHECK(prefix_split(1, 32768) > 1);   // 8 KV heads: split the 32k keys across SMs
  CHECK(prefix_split(64, 1024) == 1);  // 512 (sequence, KV head) pairs already fill the GPU
}

TEST_CASE("gpu: tree attention runs as a mask-free prefix, a masked suffix and a LSE merge") {
  const auto e = gpu_engine("h100-sxm");
  Workload w = workload("llama-3.1-8b-instruct");
  StepShape s{32, 4096, 1, MaskKind::tree, true};
  const auto g = build_verify_graph(w.target, s);
  std::vector<std::string> names;
  for (const auto& op : g.layer_ops)
    for (const auto& k : e.kernel_model().kernels_for(op, 1)) names.push_back(k.name);
  CHECK(std::count(names.begin(), names.end(), "attn_qk_prefix") == 1);
  CHECK(std::count(names.begin(), names.end(), "attn_qk_suffix") == 1);
  CHECK(std::count(names.begin(), names.end(), "attn_qk_merge") == 1);
  // Attention time grows with the context (the prefix reads the whole KV cache).
  CHECK(t_verify(e, w, 32, 32768) > t_verify(e, w, 32, 1024));
}

TEST_CASE("gpu: memory-bound decode time scales with bandwidth") {
  HardwareSpec hw = ConfigRegistry().hardware("h100-sxm");
  const sim::GpuSimEngine base(hw, sim::SimMode::event_driven);
  hw.gpu->memory_bandwidth_gbs *= 2;
  hw.gpu->kernel_overhead_us = hw.gpu->gemm_ramp_us = 0;
  const sim::GpuSimEngine fast(hw, sim::SimMode::event_driven);
  HardwareSpec no_launch = ConfigRegistry().hardware("h100-sxm");
  no_launch.gpu->kernel_overhead_us = no_launch.gpu->gemm_ramp_us = 0;
  const sim::GpuSimEngine slow(no_launch, sim::SimMode::event_driven);
  const auto w = workload("llama-3.1-8b-instruct");
  const double ratio = t_verify(fast, w, 1, 1024) / t_verify(slow, w, 1, 1024);
  CHECK(ratio == Approx(0.5).margin(0.03));
  CHECK(t_verify(base, w, 1, 1024) > t_verify(slow, w, 1, 1024));  // launches cost time
}

TEST_CASE("gpu: SD speed-up falls with batch size for a large model (paper 004)") {
  const auto e = gpu_engine("h100-sxm");
  double prev_ratio = 0;
  for (int batch : {1, 8, 32, 64}) {
    const auto w = workload("llama-3.1-70b", batch);
    // With a fixed AAT, SD's speed-up is AAT * T_v(1) / T_v(x): it falls as this ratio rises.
    const double ratio = t_verify(e, w, 8, 1024) / t_verify(e, w, 1, 1024);
    INFO("batch " << batch << ": T_v(8)/T_v(1) = " << ratio);
    CHECK(ratio >= prev_ratio);
    prev_ratio = ratio;
  }
  CHECK(prev_ratio > 1.5);
}

TEST_CASE("gpu: every GPU config runs under the sim engine") {
  const ConfigRegistry reg;
  for (const std::string name : {"h100-sxm", "a100-80gb", "a800", "v100", "rtx4090", "l40", "rtx3090"}) {
    const auto hw = reg.hardware(name);
    const auto e = sim::make_gpu_sim_engine(hw, sim::SimMode::event_driven);
    const double t = t_verify(*e, workload("llama-2-7b"), 8, 1024);
    INFO(name);
    CHECK(std::isfinite(t));
    CHECK(t > 0);
  }
}

TEST_CASE("gpu: occupancy follows CTA resources and the SM limits of each GPU") {
  const ConfigRegistry reg;
  for (const std::string name : {"h100-sxm", "a100-80gb", "a800", "v100", "rtx4090", "l40", "rtx3090"}) {
    const sim::GpuSimEngine e(reg.hardware(name), sim::SimMode::event_driven);
    const auto& m = e.kernel_model();
    const auto& g = m.spec();
    INFO(name);
    const auto big = m.gemm_kernel("gemm", 4096, 4096, 4096, 1, 4096.0 * 4096 * 2, 2);
    const int fit = m.ctas_per_sm(big);
    CHECK(fit >= 1);
    // The binding limit is one of the four, and one more CTA would break it.
    const auto& c = big.cta;
    const bool full = (fit + 1) * c.threads > g.sm_max_threads ||
                      (fit + 1) * c.threads * c.registers_per_thread > g.sm_registers ||
                      (fit + 1) * c.shared_memory_bytes > g.sm_shared_memory_kib * 1024 || fit + 1 > g.sm_max_ctas;
    CHECK(full);
    CHECK(fit * c.threads <= g.sm_max_threads);
    CHECK(fit * c.shared_memory_bytes <= g.sm_shared_memory_kib * 1024);
  }
  // A CTA that fits no SM is refused.
  const auto e = gpu_engine("v100");
  auto k = e.kernel_model().gemm_kernel("gemm", 4096, 4096, 4096, 1, 1, 2);
  k.cta.shared_memory_bytes = 1e6;
  CHECK_THROWS_AS(e.kernel_model().ctas_per_sm(k), InputError);
}

TEST_CASE("gpu: bad input is refused with a one-line InputError") {
  CHECK_THROWS_AS(sim::make_gpu_sim_engine(ConfigRegistry().hardware("xeon-16c"), sim::SimMode::event_driven),
                  InputError);
  const auto dir = std::filesystem::temp_directory_path() / "specdse_test_gpu";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "bad_gpu.yaml").string();
  std::ofstream(path) << "name: bad\nkind: gpu\nsms: 0\nclock_mhz: 1000\ntensor_tflops_fp16: 100\n"
                         "l2_mib: 4\nmemory: {type: hbm, bandwidth_gbs: 100, capacity_gib: 8}\n"
                         "kernels: {cta_tile_m: 128, cta_tile_n: 128}\n"
                         "sm: {max_threads: 2048, registers: 65536, shared_memory_kib: 228, max_ctas: 32}\n"
                         "calibration: {memory_efficiency: 0.8, tensor_efficiency: 0.7, kernel_overhead_us: 3}\n";
  try {
    load_hardware(path);
    FAIL("accepted sms: 0");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("sms") != std::string::npos);
  }
  const auto e = gpu_engine("h100-sxm");
  CHECK_THROWS_AS(t_verify(e, workload("llama-2-7b"), 0, 100), InputError);
}

TEST_CASE("gpu: plain decode runs no tree suffix kernel, a tree of two does") {
  const HardwareSpec hw = ConfigRegistry().hardware("h100-sxm");
  const roofline::GpuKernelModel model(*hw.gpu);
  const auto w = workload("llama-3.1-8b-instruct");
  const auto e = gpu_engine("h100-sxm");
  auto kernel_names = [&](int x, long long context) {
    std::string names;
    for (const auto& op : verify_graph(e, w, x, context).layer_ops)
      if (op.kind == OpKind::attention_qk)
        for (const auto& k : model.kernels_for(op, 1)) names += k.name + " ";
    return names;
  };
  for (long long context : {128LL, 32768LL}) {
    INFO("context " << context << ": x = 1 " << kernel_names(1, context) << "| x = 2 " << kernel_names(2, context));
    CHECK(kernel_names(1, context).find("_suffix") == std::string::npos);
    CHECK(kernel_names(2, context).find("_suffix") != std::string::npos);
    CHECK(kernel_names(2, context).find("_merge") != std::string::npos);
  }
  // Short context, one sequence: no split, so plain decode is a single kernel.
  CHECK(kernel_names(1, 128).find("_merge") == std::string::npos);
}
