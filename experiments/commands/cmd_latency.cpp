// specdse latency: T_v(x, L) (and T_d with --draft) from an engine, optionally per op.
#include <fmt/format.h>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/heartbeat.hpp"
#include "experiments/cli/latency_table.hpp"

namespace experiments {
namespace {

struct LatencyArgs {
  std::string hw, model, draft, x = "1", context = "1024", batch = "1", engine, format, stack, host;
  bool breakdown = false, sample = false;
};

int run_latency(const LatencyArgs& a, const GlobalOptions& g) {
  const Heartbeat beat("latency");  // a line on a terminal's stderr while a large grid runs
  const auto reg = registry(g);
  LatencyRequest r;
  r.hw = reg.hardware(a.hw);
  apply_stack_and_host(r.hw, a.stack, a.host, reg);
  r.model = reg.model(a.model);
  r.draft = a.draft;
  r.xs = parse_int_list("--x", a.x, 1, kMaxVerificationLength);
  r.contexts = parse_int_list("--context", a.context, 0, kMaxContext);
  r.batches = parse_int_list("--batch", a.batch, 1, kMaxBatch);
  r.engine = a.engine;
  r.breakdown = a.breakdown;
  r.sample = a.sample;
  print_table(latency_table(r, reg), a.format);
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
