#include "sim/golden/gpu_golden_compare.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "models/config_error.hpp"
#include "models/latency_engine.hpp"
#include "sim/gpu/gpu_device.hpp"
#include "sim/gpu/gpu_kernel_model.hpp"
#include "sim/gpu/gpu_launch_plan.hpp"
#include "sim/gpu/gpu_sim_engine.hpp"
#include "sim/gpu/gpu_streams.hpp"
#include "sim/golden/gpu_generate_golden.hpp"
#include "sim/golden/measured_csv.hpp"
#include "sim/io/csv.hpp"

namespace sim {

namespace {

// The model a measured row names; an unknown name is an error at that file and line.
models::ModelSpec model_at(const models::ConfigRegistry& registry, const std::string& name, const std::string& csv_path,
                           int line_no) {
  try {
    return registry.model(name);
  } catch (const models::InputError& e) {
    throw models::InputError(fmt::format("{}:{}: model: {}", csv_path, line_no, e.what()));
  }
}

// An RMSNorm of m rows of n FP16 values: read the rows and the gain, write the rows; a sum of
// squares and a scale per value.
GpuKernel rmsnorm_kernel(const GpuKernelModel& model, std::int64_t m, std::int64_t n) {
  return model.memory_kernel("rmsnorm", 2.0 * (2.0 * double(m) * n + double(n)), 4.0 * double(m) * n);
}

}  // namespace

std::vector<GoldenRow> compare_gpu_measurements(const std::string& csv_path, const models::HardwareSpec& gpu) {
  if (!gpu.gpu) throw models::InputError(fmt::format("--hw: '{}' is not a GPU; --measured compares GPU kernels", gpu.name));
  const GpuKernelModel model(*gpu.gpu);
  const double isolated_s = double(model.isolated_launch_cycles()) / model.clock_hz();
  std::vector<GoldenRow> rows;
  for_each_measured_record(csv_path, "kernel,m,n,k,measured_s", [&](const std::vector<std::string>& f,
                                                              const std::string& line, int line_no) {
    GoldenRow row;
    try {
      if (f.size() != 5) throw std::invalid_argument("fields");
      row.shape.kernel = f[0];
      row.shape.m = std::stoll(f[1]);
      row.shape.n = std::stoll(f[2]);
      row.shape.k = std::stoll(f[3]);
      row.measured_s = std::stod(f[4]);
    } catch (const std::exception&) {
      throw models::InputError(fmt::format("{}:{}: expected kernel,m,n,k,measured_s with numbers, got '{}'", csv_path, line_no, line));
    }
    if (row.shape.m < 1 || row.shape.n < 1 || row.shape.k < 1 || !(row.measured_s > 0) || !std::isfinite(row.measured_s))
      throw models::InputError(fmt::format("{}:{}: expected m, n, k >= 1 and measured_s > 0, got '{}'", csv_path, line_no, line));
    row.measured_median_s = row.measured_s;
    const std::string kernel = row.shape.kernel;
    const auto gemm = [&] {
      const auto op = golden_gemm_op(row.shape.m, row.shape.n, row.shape.k, 2.0);
      const auto k = model.gemm_kernel(op.name, op.m, op.n, op.k, 1, op.weight_bytes + op.activation_bytes, 2.0);
      row.shape.source = fmt::format("tile {}x{} split {}", k.tile_m, k.tile_n, k.split);
      return model.seconds({k});
    };
    long long heads = 0, kv = 0, sequences = 0;
    if (kernel == "gemm" || kernel == "gemv") {
      row.predicted_s = isolated_s + gemm();
    } else if (kernel == "gemm_graph" || kernel == "gemm_stream") {
      row.predicted_s = gemm();
    } else if (kernel == "rmsnorm" || kernel == "rmsnorm_graph" || kernel == "rmsnorm_stream") {
      row.shape.source = "element-wise kernel";
      row.predicted_s = (kernel == "rmsnorm" ? isolated_s : 0.0) +
                        model.seconds({rmsnorm_kernel(model, row.shape.m, row.shape.n)});
    } else if (kernel.rfind("tree_attention_h", 0) == 0) {
      if (std::sscanf(kernel.c_str(), "tree_attention_h%lld_kv%lld", &heads, &kv) != 2 || heads < 1 || kv < 1)
        throw models::InputError(fmt::format("{}:{}: kernel: expected tree_attention_h<H>_kv<KV>, got '{}'", csv_path, line_no, kernel));
      row.shape.heads = heads;
      row.shape.kv_heads = kv;
      row.shape.kernel = "tree_attention";
      row.shape.source = kernel;
      const auto ops = golden_attention_ops(row.shape, 2.0);
      row.predicted_s = isolated_s + model.seconds(model.kernels_for(ops[0], 1));
    } else if (kernel.rfind("flash_attention_h", 0) == 0) {
      if (std::sscanf(kernel.c_str(), "flash_attention_h%lld_kv%lld_b%lld", &heads, &kv, &sequences) != 3 ||
          heads < 1 || kv < 1 || sequences < 1 || heads % kv != 0)
        throw models::InputError(fmt::format(
            "{}:{}: kernel: expected flash_attention_h<H>_kv<KV>_b<B> (H a multiple of KV), got '{}'", csv_path, line_no, kernel));
      GoldenShape s = row.shape;
      s.kernel = "decode_attention";  // mask-free: every key is in the cache
      s.heads = heads * sequences;     // the op's batch: heads of every sequence
      s.kv_heads = kv * sequences;
      auto ops = golden_attention_ops(s, 2.0);
      ops[0].kv_heads = kv;
      row.shape.heads = heads;
      row.shape.kv_heads = kv;
      row.shape.kernel = "flash_attention";
      row.shape.source = kernel;
      row.predicted_s = isolated_s + model.seconds(model.kernels_for(ops[0], int(sequences)));
    } else {
      throw models::InputError(fmt::format(
          "{}:{}: kernel: expected gemm, gemv, gemm_graph, gemm_stream, rmsnorm[_graph|_stream], "
          "tree_attention_h<H>_kv<KV> or flash_attention_h<H>_kv<KV>_b<B>, got '{}'",
          csv_path, line_no, kernel));
    }
    rows.push_back(row);
  });
  if (rows.empty()) throw models::InputError(fmt::format("{}: no measurement rows", csv_path));
  return rows;
}

bool is_step_csv(const std::string& csv_path) { return measured_header_starts(csv_path, "model,batch,x"); }
bool is_contention_csv(const std::string& csv_path) { return measured_header_starts(csv_path, "stream,model"); }

std::vector<ContentionGoldenRow> compare_gpu_contention(const std::string& csv_path, const models::HardwareSpec& gpu,
                                                        const models::ConfigRegistry& registry) {
  if (!gpu.gpu)
    throw models::InputError(fmt::format("--hw: '{}' is not a GPU; --measured compares GPU streams", gpu.name));
  models::HardwareSpec bare = gpu;
  bare.stack = models::SoftwareStack{};  // graph replays: no host work between kernels
  const GpuSimEngine engine(bare, SimMode::event_driven);
  std::vector<ContentionGoldenRow> rows;
  std::vector<models::StepGraph> graphs;
  for_each_measured_record(csv_path, "stream,model,batch,x,context,alone_s,together_s",
                     [&](const std::vector<std::string>& f, const std::string& line, int line_no) {
    ContentionGoldenRow r;
    try {
      if (f.size() != 7) throw std::invalid_argument("fields");
      r.stream = f[0];
      r.model = f[1];
      r.batch = std::stoi(f[2]);
      r.x = std::stoi(f[3]);
      r.context = std::stoll(f[4]);
      r.alone_s = std::stod(f[5]);
      r.together_s = std::stod(f[6]);
    } catch (const std::exception&) {
      throw models::InputError(fmt::format(
          "{}:{}: expected stream,model,batch,x,context,alone_s,together_s with numbers, got '{}'", csv_path, line_no, line));
    }
    if (r.batch < 1 || r.x < 1 || r.context < 0 || !(r.alone_s > 0) || !(r.together_s > 0) ||
        !std::isfinite(r.alone_s) || !std::isfinite(r.together_s))
      throw models::InputError(fmt::format(
          "{}:{}: expected batch, x >= 1, context >= 0 and times > 0, got '{}'", csv_path, line_no, line));
    models::Workload w;
    w.target = model_at(registry, r.model, csv_path, line_no);
    w.batch = r.batch;
    graphs.push_back(models::verify_graph(engine, w, r.x, r.context));
    rows.push_back(r);
  });
  if (rows.empty()) throw models::InputError(fmt::format("{}: no measured streams", csv_path));
  for (std::size_t begin = 0; begin < rows.size();) {
    std::size_t end = begin + 1;
    while (end < rows.size() && rows[end].batch == rows[begin].batch && rows[end].x == rows[begin].x &&
           rows[end].context == rows[begin].context)
      ++end;
    if (end - begin < 2)
      throw models::InputError(fmt::format("{}: stream '{}' (batch {}, x {}, context {}) has no partner stream",
                                           csv_path, rows[begin].stream, rows[begin].batch, rows[begin].x,
                                           rows[begin].context));
    std::vector<GpuStreamWork> work;
    for (std::size_t i = begin; i < end; ++i) {
      rows[i].predicted_alone_s = engine.step(graphs[i], false).seconds;
      work.push_back({rows[i].stream, graphs[i], 0.0});
    }
    const auto together = run_gpu_streams(bare, work, SimMode::event_driven);
    for (std::size_t i = begin; i < end; ++i) rows[i].predicted_together_s = together[i - begin].end_s;
    begin = end;
  }
  return rows;
}

std::vector<EagerStepGoldenRow> compare_gpu_eager_steps(const std::string& csv_path, const models::HardwareSpec& gpu,
                                                        const models::SoftwareStack& stack,
                                                        const models::ConfigRegistry& registry) {
  if (!gpu.gpu) throw models::InputError(fmt::format("--hw: '{}' is not a GPU; --measured compares GPU steps", gpu.name));
  models::HardwareSpec eager = gpu;
  eager.stack = stack;
  eager.stack.per_step_host_us = 0;  // the measured loop times the forward alone
  eager.stack.step_kernels.clear();
  eager.stack.sampled_step_kernels.clear();
  const GpuSimEngine engine(eager, SimMode::event_driven);
  const GpuKernelModel model(*gpu.gpu);
  std::vector<EagerStepGoldenRow> rows;
  for (const StepGoldenRow& measured : compare_gpu_steps(csv_path, gpu, registry)) {
    EagerStepGoldenRow row;
    row.model = measured.model;
    row.batch = measured.batch;
    row.x = measured.x;
    row.context = measured.context;
    row.measured_kernels = measured.measured_kernels;
    row.graph_s = measured.graph_s;
    row.eager_s = measured.eager_s;
    models::Workload w;
    w.target = registry.model(row.model);
    w.batch = row.batch;
    const StackStepRun run = run_stack_step(model, eager.stack, eager.host, models::verify_graph(engine, w, row.x, row.context));
    row.model_kernels = run.kernels;
    row.predicted_s = run.seconds;
    row.device_busy_s = run.device_busy_s;
    rows.push_back(row);
  }
  return rows;
}

std::vector<StepGoldenRow> compare_gpu_steps(const std::string& csv_path, const models::HardwareSpec& gpu,
                                             const models::ConfigRegistry& registry) {
  if (!gpu.gpu) throw models::InputError(fmt::format("--hw: '{}' is not a GPU; --measured compares GPU steps", gpu.name));
  models::HardwareSpec bare = gpu;
  bare.stack = models::SoftwareStack{};  // a graph replay: no host work between kernels
  const GpuSimEngine engine(bare, SimMode::event_driven);
  const GpuKernelModel model(*gpu.gpu);
  std::vector<StepGoldenRow> rows;
  for_each_measured_record(csv_path, "model,batch,x,context,kernels,graph_s,eager_s", [&](const std::vector<std::string>& f,
                                                                                   const std::string& line, int line_no) {
    if (f.size() != 7)
      throw models::InputError(fmt::format("{}:{}: expected model,batch,x,context,kernels,graph_s,eager_s, got '{}'",
                                           csv_path, line_no, line));
    if (f[5] == "oom" || f[5] == "error") return;  // not measured: did not fit the GPU / failed there
    StepGoldenRow row;
    try {
      row.model = f[0];
      row.batch = std::stoi(f[1]);
      row.x = std::stoi(f[2]);
      row.context = std::stoll(f[3]);
      row.measured_kernels = std::stoll(f[4]);
      row.graph_s = std::stod(f[5]);
      row.eager_s = std::stod(f[6]);
    } catch (const std::exception&) {
      throw models::InputError(fmt::format("{}:{}: expected numbers in batch, x, context, kernels, graph_s, eager_s, got '{}'",
                                           csv_path, line_no, line));
    }
    if (row.batch < 1 || row.x < 1 || row.context < 0 || !(row.graph_s > 0) || !std::isfinite(row.graph_s) ||
        !(row.eager_s > 0) || !std::isfinite(row.eager_s))
      throw models::InputError(fmt::format("{}:{}: expected batch, x >= 1, context >= 0 and graph_s, eager_s > 0, got '{}'",
                                           csv_path, line_no, line));
    models::Workload w;
    w.target = model_at(registry, row.model, csv_path, line_no);
    w.batch = row.batch;
    const models::StepGraph graph = models::verify_graph(engine, w, row.x, row.context);
    row.predicted_s = engine.step(graph, false).seconds;
    models::for_each_op_group(graph, [&](const std::vector<models::Op>& ops, int count, bool) {
      for (const auto& op : ops) row.model_kernels += (long long)(model.kernels_for(op, graph.batch).size()) * count;
    });
    row.predicted_same_kernels_s = row.predicted_s;
    if (row.measured_kernels > 0)
      row.predicted_same_kernels_s += double(row.measured_kernels - row.model_kernels) * gpu.gpu->kernel_overhead_us * 1e-6;
    rows.push_back(row);
  });
  if (rows.empty()) throw models::InputError(fmt::format("{}: no measured steps", csv_path));
  return rows;
}

}  // namespace sim
