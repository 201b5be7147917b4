#include "sim/golden/gpu_generate_golden.hpp"

#include <fmt/format.h>

#include <cmath>

#include "models/config_error.hpp"
#include "models/latency_engine.hpp"
#include "sim/gpu/gpu_device.hpp"
#include "sim/gpu/gpu_launch_plan.hpp"
#include "sim/gpu/gpu_sim_engine.hpp"
#include "sim/golden/measured_csv.hpp"

namespace sim {

StackStepRun run_stack_step(const GpuKernelModel& model, const models::SoftwareStack& stack,
                            const models::HostSpec& host, const models::StepGraph& graph) {
  GpuWorkload workload;
  workload.streams.push_back(lower_step(model, stack, host, graph, "step", 0, workload));
  const DeviceRun run = run_gpu_device(model, workload, SimMode::event_driven);
  StackStepRun out;
  out.kernels = (long long)workload.streams[0].launches.size();
  out.seconds = double(run.end_cycle) / model.clock_hz();
  std::int64_t busy = 0;
  for (const auto& r : run.streams[0]) busy += r.end - r.start;
  out.device_busy_s = double(busy) / model.clock_hz();
  return out;
}

namespace {

models::HardwareSpec require_gpu(const models::HardwareSpec& gpu, const models::SoftwareStack& stack) {
  if (!gpu.gpu)
    throw models::InputError(fmt::format("--hw: '{}' is not a GPU; --measured compares GPU decode loops", gpu.name));
  models::HardwareSpec eager = gpu;
  eager.stack = stack;
  return eager;
}

}  // namespace

GenerateTokenTimer::GenerateTokenTimer(const models::HardwareSpec& gpu, const models::SoftwareStack& stack)
    : stack_(stack), host_(gpu.host), engine_(require_gpu(gpu, stack), SimMode::event_driven) {}

StackStepRun GenerateTokenTimer::token(const models::Workload& w, long long prompt_tokens, int new_tokens) const {
  const long long mean_context = prompt_tokens + (new_tokens + 1) / 2;
  return run_stack_step(engine_.kernel_model(), stack_, host_, models::verify_graph(engine_, w, 1, mean_context));
}

namespace {

constexpr const char* kGenerateHeader = "model,variant,batch,context,new_tokens,kernels_per_token,per_token_s";

}  // namespace

models::ModelSpec measured_row_model(const models::ConfigRegistry& registry, const std::string& name,
                                     const std::string& csv_path, int line_no) {
  try {
    return registry.model(name);
  } catch (const models::InputError& e) {
    throw models::InputError(fmt::format("{}:{}: model: {}", csv_path, line_no, e.what()));
  }
}

bool is_generate_csv(const std::string& csv_path) { return measured_header_starts(csv_path, "model,variant,batch"); }

std::vector<GenerateGoldenRow> compare_gpu_generate_loop(const std::string& csv_path, const models::HardwareSpec& gpu,
                                                         const models::SoftwareStack& stack,
                                                         const models::ConfigRegistry& registry) {
  const GenerateTokenTimer timer(gpu, stack);
  std::vector<GenerateGoldenRow> rows;
  for_each_measured_record(csv_path, kGenerateHeader, [&](const std::vector<std::string>& f, const std::string& text, int line_no) {
    if (f.size() != 7)
      throw models::InputError(fmt::format("{}:{}: expected {}, got '{}'", csv_path, line_no, kGenerateHeader, text));
    if (f[1].rfind("generate_", 0) != 0 || f[6] == "oom" || f[6] == "error") return;
    GenerateGoldenRow row;
    try {
      row.model = f[0];
      row.variant = f[1];
      row.batch = std::stoi(f[2]);
      row.context = std::stoll(f[3]);
      row.new_tokens = std::stoi(f[4]);
      row.measured_kernels = std::stod(f[5]);
      row.measured_s = std::stod(f[6]);
    } catch (const std::exception&) {
      throw models::InputError(fmt::format("{}:{}: expected numbers in batch, context, new_tokens, kernels_per_token, "
                                           "per_token_s, got '{}'", csv_path, line_no, text));
    }
    if (row.batch < 1 || row.context < 0 || row.new_tokens < 1 || !(row.measured_s > 0) || !std::isfinite(row.measured_s))
      throw models::InputError(fmt::format("{}:{}: expected batch, new_tokens >= 1, context >= 0 and per_token_s > 0, got '{}'",
                                           csv_path, line_no, text));
    models::Workload w;
    w.target = measured_row_model(registry, row.model, csv_path, line_no);
    w.batch = row.batch;
    w.sampled = row.variant == "generate_sample";  // do_sample: the stack's sampler kernels too
    const StackStepRun run = timer.token(w, row.context, row.new_tokens);
    row.model_kernels = run.kernels;
    row.predicted_s = run.seconds;
    row.device_busy_s = run.device_busy_s;
    rows.push_back(row);
  });
  return rows;
}

}  // namespace sim
