// EAGLE's public code as paper 002's PP + EAGLE-3 baseline ran it (configs/stacks/
// eagle-accelerate.yaml): accelerate's per-layer hooks and staged copies measured on a lent H200,
// EAGLE's eager attention, and the per-step host work paid once per step. The system entry that
// puts the baseline on that stack: tests/search/test_specpipe_method_stacks.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/latency_engine.hpp"
#include "models/software_stack.hpp"
#include "roofline/gpu_roofline.hpp"
#include "sim/gpu/gpu_launch_plan.hpp"
#include "sim/io/csv.hpp"
#include "tests/sim/golden_files.hpp"

namespace {

const models::ConfigRegistry& reg() {
  static const models::ConfigRegistry r;
  return r;
}

models::SoftwareStack stack(const std::string& name) { return models::load_software_stack(reg().path("stacks", name)); }

using golden_files::measured;

// The CSV's data rows as column name -> cell.
std::vector<std::map<std::string, std::string>> rows_of(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  sim::CsvReader reader(in, path);
  sim::CsvRecord rec;
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> out;
  while (reader.next(rec)) {
    if (header.empty()) {
      header = rec.cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < rec.cells.size(); ++i) row[header[i]] = rec.cells[i];
    out.push_back(row);
  }
  return out;
}

}  // namespace

TEST_CASE("eagle-accelerate stack: the per-layer hook cost is run 1's hooked generate less the plain one") {
  std::map<std::string, double> plain, hooked;
  const std::map<std::string, int> layers{{"llama-3.1-8b-instruct", 32}, {"llama-3.2-1b", 16}};
  for (const auto& r : rows_of(measured("h200_hf_generate_2026-11-27_run1.csv"))) {
    const std::string key = r.at("model") + "/" + r.at("batch");
    if (r.at("variant") == "generate_greedy") plain[key] = std::stod(r.at("per_token_s"));
    if (r.at("variant") == "generate_hooks") hooked[key] = std::stod(r.at("per_token_s"));
  }
  std::vector<double> per_layer_us;
  for (const auto& [key, t] : hooked) {
    REQUIRE(plain.count(key));
    per_layer_us.push_back((t - plain[key]) / layers.at(key.substr(0, key.find('/'))) * 1e6);
  }
  REQUIRE(per_layer_us.size() == 4);  // two models at batch 1 and 16
  std::sort(per_layer_us.begin(), per_layer_us.end());
  const double median = (per_layer_us[1] + per_layer_us[2]) / 2;
  CHECK(median == Approx(34.3).margin(0.1));
  // The stack's per-layer figure is eager PyTorch's module call plus the hook.
  CHECK(stack("eagle-accelerate").per_layer_host_us == Approx(stack("pytorch-eager").per_layer_host_us + median).margin(0.5));
}

TEST_CASE("eagle-accelerate stack: the staged copy is the least-squares line through the measured copies") {
  std::vector<double> x, y;
  for (const auto& r : rows_of(measured("h200_hf_copies_2026-11-27_run1.csv"))) {
    x.push_back(std::stod(r.at("bytes")));
    y.push_back(std::stod(r.at("seconds")) * 1e6);
  }
  REQUIRE(x.size() == 4);
  const double n = double(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
  const double slope_us = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const double fixed_us = (sy - slope_us * sx) / n;
  const auto copy = stack("eagle-accelerate").staged_device_copy;
  REQUIRE(copy.has_value());
  CHECK(copy->fixed_us == Approx(fixed_us).margin(0.05));
  CHECK(copy->ns_per_byte == Approx(slope_us * 1e3).epsilon(0.01));
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(std::abs(copy->seconds(x[i], models::HostSpec{}) * 1e6 - y[i]) < 1.5);
  // Stacks that send over NCCL have none.
  CHECK_FALSE(stack("huggingface-transformers").staged_device_copy.has_value());
}

TEST_CASE("eagle-accelerate stack: repeat_kv copies only under grouped-query attention, the scores grow with the context") {
  const auto s = stack("eagle-accelerate");
  const auto hw = reg().hardware("rtx3090");
  const roofline::GpuKernelModel model(*hw.gpu);
  auto graph = [&](const std::string& name, std::int64_t context) {
    models::StepShape sh;
    sh.tokens = 60;
    sh.context = context;
    sh.mask = models::MaskKind::tree;
    return models::build_verify_graph(reg().model(name), sh);
  };
  auto names = [&](const models::StepGraph& g) {
    std::vector<std::string> out;
    for (const auto& k : sim::stack_kernels(model, s.layer_kernels, g)) out.push_back(k.name);
    return out;
  };
  auto count = [](const std::vector<std::string>& v, const std::string& n) { return std::count(v.begin(), v.end(), n); };
  CHECK(count(names(graph("llama-3.1-70b", 1024)), "repeat_kv") == 2);  // 8 KV heads for 64 query heads
  CHECK(count(names(graph("llama-2-7b", 1024)), "repeat_kv") == 0);     // one KV head per query head
  auto scores_bytes = [&](std::int64_t context) {
    double b = 0;
    for (const auto& k : sim::stack_kernels(model, s.layer_kernels, graph("llama-3.1-70b", context)))
      if (k.name == "eager_attention_scores") b += k.dram_bytes;
    return b;
  };
  // batch x heads x tokens x (context + tokens) x 12 passes x 2 bytes
  CHECK(scores_bytes(1024) == Approx(64.0 * 60 * (1024 + 60) * 12 * 2).epsilon(1e-9));
  CHECK(scores_bytes(4096) > 3.5 * scores_bytes(1024));
}

TEST_CASE("stacks: a step's own host work is paid once per step, not per pipeline stage or head pass") {
  auto hw = reg().hardware("rtx3090");
  hw.stack = stack("huggingface-transformers");
  const roofline::GpuKernelModel model(*hw.gpu);
  models::StepShape sh;
  sh.tokens = 1;
  sh.context = 1024;
  const auto whole = models::build_verify_graph(reg().model("llama-3.1-70b"), sh);
  auto host_cycles = [&](const models::StepGraph& g) {
    sim::GpuWorkload work;
    const auto plan = sim::lower_step(model, hw.stack, hw.host, g, "step", 0, work);
    std::int64_t c = 0;
    for (const auto& l : plan.launches) c += l.host_cycles_before;
    return std::make_pair(c, plan.launches.size());
  };
  models::StepGraph stage = whole;  // a pipeline stage before the last: no tail
  stage.tail_ops.clear();
  models::StepGraph inside = whole;  // a pass inside a step another graph carries
  inside.step_work = false;
  const auto [c_whole, n_whole] = host_cycles(whole);
  const auto [c_stage, n_stage] = host_cycles(stage);
  const auto [c_inside, n_inside] = host_cycles(inside);
  const double hz = model.clock_hz();
  int step_kernels = 0;
  for (const auto& k : hw.stack.step_kernels) step_kernels += k.kernels;
  // The inside pass launches the same graph less the step's own kernels and host work.
  CHECK(n_whole - n_inside == std::size_t(step_kernels));
  CHECK(double(c_whole - c_inside) / hz * 1e6 ==
        Approx(hw.stack.per_step_host_us + hw.stack.kernel_launch_host_us * step_kernels).epsilon(1e-3));
  CHECK(n_stage < n_inside);  // nor does the stage, which has no tail kernels either
  CHECK(c_stage < c_inside);
}
