// specdse latency: T_v(x, L) (and T_d with --draft) from an engine, optionally per op.
#include <fmt/format.h>

#include <algorithm>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/heartbeat.hpp"
#include "models/config_error.hpp"
#include "models/software_stack.hpp"
#include "models/system_spec.hpp"
#include "sim/system/system_costs.hpp"
#include "search/work_bound.hpp"

namespace experiments {
namespace {

struct LatencyArgs {
  std::string hw, model, draft, x = "1", context = "1024", batch = "1", engine, format, stack, host;
  bool breakdown = false, sample = false;
};

int run_latency(const LatencyArgs& a, const GlobalOptions& g) {
  const Heartbeat beat("latency");  // a line on a terminal's stderr while a large grid runs
  const auto reg = registry(g);
  models::HardwareSpec hw = reg.hardware(a.hw);
  if (!a.stack.empty()) {
    hw.stack = models::load_software_stack(reg.path("stacks", a.stack));  // a misspelt name first
    if (!hw.charges_software_stack())
      throw models::InputError(fmt::format("--stack {}: {} is a {} device, whose engines run no host framework "
                                           "(the stack would be ignored)", a.stack, hw.name, hw.kind));
  }
  if (!a.host.empty()) {
    hw.host = models::load_host(reg.path("hosts", a.host));  // a misspelt name first
    if (!hw.charges_software_stack())
      throw models::InputError(fmt::format("--host {}: {} is a {} device, whose engines run no host framework "
                                           "(the host would be ignored)", a.host, hw.name, hw.kind));
  }
  models::Workload w;
  w.target = reg.model(a.model);
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
  const auto xs = parse_int_list("--x", a.x, 1, kMaxVerificationLength);
  const auto contexts = parse_int_list("--context", a.context, 0, kMaxContext);
  const auto batches = parse_int_list("--batch", a.batch, 1, kMaxBatch);
  search::require_work_within("latency", fmt::format("--x ({}) x --context ({}) x --batch ({})", xs.size(),
                                                     contexts.size(), batches.size()),
                              double(xs.size()) * double(contexts.size()) * double(batches.size()),
                              search::kMaxLatencyRows, "rows");
  // A design that does not fit is infeasible, not timed: check the largest step asked for.
  sim::MemoryQuery mq;
  mq.batch = int(batches.back());
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
    w.batch = int(batches.front());
    if (batches.size() > 1)
      throw models::InputError("--breakdown: expected one --batch value, got " + a.batch);
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
    print_table(t, a.format);
    return 0;
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
  print_table(t, a.format);
  return 0;
}

const RegisterCommand latency_registration{
    "latency", "T_v(x, L) and T_d per verification length and context from a latency engine",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<LatencyArgs>();
      sub.add_option("--hw", a->hw, "Hardware config name (configs/hardware)")->required();
      sub.add_option("--model", a->model, "Target model: config name (configs/models), NAME@FORMAT, or a YAML path")->required();
      sub.add_option("--draft", a->draft,
                     "SD algorithm (configs/algorithms) or a standalone draft model name: adds T_d");
      // Another command's name for the same input: listed, and an error given with --draft.
      sub.add_option("--algorithm", a->draft, "Same as --draft (the name optimize uses)")->excludes("--draft");
      sub.add_option("--x", a->x,
                     fmt::format("Verification lengths: 1,2,4 or 1-128 (at most {})", kMaxVerificationLength))
          ->default_val("1");
      sub.add_option("--context", a->context, "Context lengths L (tokens in the KV cache)")->default_val("1024");
      sub.add_option("--batch", a->batch, "Sequences per step: 1, a list 1,8 or a range 1-64")->default_val("1");
      sub.add_option("--stack", a->stack,
                     "Software stack running the model (configs/stacks: host overheads and extra kernels, on both engines)");
      sub.add_option("--host", a->host,
                     "Host CPU running the stack (configs/hosts: its dispatch_time_scale scales every host figure; "
                     "default: reference, the hosts the stacks were measured on)");
      sub.add_flag("--breakdown", a->breakdown, "Per-op time, compute/memory/stall shares and utilisations");
      sub.add_flag("--sample", a->sample,
                   "The run samples its tokens (temperature, top-k, top-p) instead of taking the argmax: the step "
                   "adds the stack's sampler kernels (extra_kernels.per_step_sampled)");
      add_engine_option(sub, a->engine);
      add_format_option(sub, a->format);
      return [a, &g] { return run_latency(*a, g); };
    },
    10};

}  // namespace
}  // namespace experiments
