#include "experiments/cli/latency_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "experiments/cli/cli_common.hpp"
#include "models/config_error.hpp"
#include "models/host_spec.hpp"
#include "models/software_stack.hpp"
#include "models/system_spec.hpp"
#include "search/work_bound.hpp"
#include "sim/system/system_costs.hpp"

namespace experiments {

void apply_stack_and_host(models::HardwareSpec& hw, const std::string& stack, const std::string& host,
                          const models::ConfigRegistry& reg, const std::string& stack_option,
                          const std::string& host_option) {
  if (!stack.empty()) {
    hw.stack = models::load_software_stack(reg.path("stacks", stack));  // a misspelt name first
    if (!hw.charges_software_stack())
      throw models::InputError(fmt::format("{} {}: {} is a {} device, whose engines run no host framework "
                                           "(the stack would be ignored)", stack_option, stack, hw.name, hw.kind));
  }
  if (!host.empty()) {
    hw.host = models::load_host(reg.path("hosts", host));  // a misspelt name first
    if (!hw.charges_software_stack())
      throw models::InputError(fmt::format("{} {}: {} is a {} device, whose engines run no host framework "
                                           "(the host would be ignored)", host_option, host, hw.name, hw.kind));
  }
}

Table latency_table(const LatencyRequest& a, const models::ConfigRegistry& reg) {
  const models::HardwareSpec& hw = a.hw;
  models::Workload w;
  w.target = a.model;
  w.sampled = a.sample;
  // Only a stack that lists its sampler's kernels models a sampled step: elsewhere the flag would
  // change nothing, and a greedy number would pass for a sampled one.
  if (a.sample && !hw.gpu)
    throw models::InputError(fmt::format("--sample: {} is a {} device; a sampled step's kernels are modelled on GPUs "
                                         "(a stack's extra_kernels.per_step_sampled)", hw.name, hw.kind));
  if (a.sample && hw.stack.sampled_step_kernels.empty())
    throw models::InputError(fmt::format("--sample: stack {} models greedy decoding only (no "
                                         "extra_kernels.per_step_sampled; huggingface-transformers has them)",
                                         hw.stack.name));
  if (!a.draft.empty()) w.algorithm = std::make_shared<models::AlgorithmSpec>(reg.algorithm(a.draft));
  const auto& xs = a.xs;
  const auto& contexts = a.contexts;
  const auto& batches = a.batches;
  if (xs.empty() || contexts.empty() || batches.empty())
    throw models::InputError("latency: expected at least one x, context and batch, got none");
  // The command's bounds for callers that did not parse them from its flags (Python's keywords).
  auto check = [](const std::vector<long long>& values, const char* what, long long lo, long long hi) {
    for (long long v : values)
      if (v < lo || v > hi)
        throw models::InputError(fmt::format("latency: {}: expected integers in [{}, {}], got {}", what, lo, hi, v));
  };
  check(xs, "x", 1, kMaxVerificationLength);
  check(contexts, "context", 0, kMaxContext);
  check(batches, "batch", 1, kMaxBatch);
  search::require_work_within("latency", fmt::format("--x ({}) x --context ({}) x --batch ({})", xs.size(),
                                                     contexts.size(), batches.size()),
                              double(xs.size()) * double(contexts.size()) * double(batches.size()),
                              search::kMaxLatencyRows, "rows");
  // A design that does not fit is infeasible, not timed: check the largest step asked for.
  sim::MemoryQuery mq;
  mq.batch = int(*std::max_element(batches.begin(), batches.end()));
  mq.step_tokens = int(*std::max_element(xs.begin(), xs.end()));
  mq.kv_tokens = *std::max_element(contexts.begin(), contexts.end()) + mq.step_tokens;
  // The device as a one-device deployment: its memory rule, and its engine behind the memo.
  const sim::SystemCosts deployment(models::single_device_system(hw), a.engine);
  deployment.require_workload_fit(0, w.target, w.algorithm.get(), mq);
  const models::LatencyEngine* engine = &deployment.engine(0);

  if (a.breakdown) {
    Table t({"hw", "model", "engine", "x", "context", "op", "count", "time_s", "cycles",
             "compute_s", "memory_s", "stall_s", "compute_share", "memory_share", "stall_share",
             "compute_utilisation", "memory_utilisation"});
    if (batches.size() > 1)
      throw models::InputError(fmt::format("--breakdown: expected one --batch value, got {} values", batches.size()));
    w.batch = int(batches.front());
    for (long long L : contexts)
      for (long long x : xs) {
        const auto cost = engine->step(models::verify_graph(*engine, w, int(x), L), true);
        for (const auto& op : cost.ops) {
          const double busy = op.compute_s + op.memory_s + op.stall_s;
          auto share = [&](double v) { return busy > 0 ? v / busy : 0.0; };
          t.add_row({hw.name, w.target.name, engine->name(), integer(x), integer(L), op.op,
                     integer(op.count), num(op.seconds), integer(op.cycles), num(op.compute_s),
                     num(op.memory_s), num(op.stall_s), num(share(op.compute_s), 3),
                     num(share(op.memory_s), 3), num(share(op.stall_s), 3),
                     num(op.compute_utilisation, 3), num(op.memory_utilisation, 3)});
        }
      }
    return t;
  }

  std::vector<std::string> cols = {"hw", "model", "engine", "batch", "x", "context", "t_verify_s",
                                   "tokens_per_s_total"};  // x * batch / T_v: the whole batch
  if (w.algorithm) cols.insert(cols.end(), {"draft", "draft_passes", "t_draft_s", "t_step_s"});
  Table t(cols);
  for (long long b : batches) {
    w.batch = int(b);
    for (long long L : contexts)
      for (long long x : xs) {
        const double tv = models::t_verify(*engine, w, int(x), L);
        std::vector<Cell> row = {hw.name, w.target.name, engine->name(), integer(b), integer(x),
                                 integer(L), num(tv), num(double(x) * double(b) / tv)};
        if (w.algorithm) {
          const double td = models::t_draft(*engine, w, int(x), L);
          row.insert(row.end(), {w.algorithm->name, integer(w.algorithm->depth(int(x))), num(td), num(tv + td)});
        }
        t.add_row(row);
      }
  }
  return t;
}

}  // namespace experiments
