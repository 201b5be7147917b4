// specdse system: one decode step of a system (configs/systems/<name>.yaml) on the event-driven
// timeline: each device's busy time and memory (with a fits / infeasible status), each link
// lane's traffic and busy time, each group's collectives (the algorithm and the transport NCCL
// or vLLM used), the step time; --trace writes the timeline as Chrome trace-event JSON for
// Perfetto (ui.perfetto.dev) or chrome://tracing.
#include <fmt/format.h>

#include <sstream>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/heartbeat.hpp"
#include "models/config_error.hpp"
#include "models/system_spec.hpp"
#include "sim/io/output_path.hpp"
#include "sim/system/system_step.hpp"

namespace experiments {
namespace {

struct SystemArgs {
  std::string system, model, draft, engine, format, trace, baseline;
  int x = 1, batch = 1;
  long long context = 1024;
};

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

int run_system(const SystemArgs& a, const GlobalOptions& g) {
  const Heartbeat beat("system");  // a line on a terminal's stderr while a large grid runs
  // The trace's target is checked before the work and written before the table is printed: a
  // failed output never follows a printed result.
  if (!a.trace.empty()) sim::check_output_target(a.trace);
  const auto reg = registry(g);
  models::SystemSpec spec = models::load_system(reg.path("systems", a.system), reg);
  if (!a.baseline.empty()) {
    // The placement a baseline of the system runs (as the SpecPipe scenario runs it): the same
    // stages under another stack, or regrouped tensor parallel per device group.
    if (auto it = spec.baseline_stacks.find(a.baseline); it != spec.baseline_stacks.end()) {
      spec = models::with_target_stack(spec, it->second);
    } else if (auto tp = spec.baseline_tp_stacks.find(a.baseline); tp != spec.baseline_tp_stacks.end()) {
      spec = models::with_group_tensor_parallel(models::with_target_stack(spec, tp->second));
    } else {
      std::vector<std::string> known;
      for (const auto& kv : spec.baseline_stacks) known.push_back(kv.first);
      for (const auto& kv : spec.baseline_tp_stacks) known.push_back(kv.first);
      throw models::InputError(fmt::format("--baseline: '{}' is not a baseline of {} (its baselines: {})", a.baseline,
                                           spec.name, known.empty() ? "none" : fmt::format("{}", fmt::join(known, ", "))));
    }
  }
  sim::SystemQuery q;
  q.target = reg.model(a.model);
  if (!a.draft.empty()) q.draft = reg.model(a.draft);
  q.x = a.x;
  q.context = a.context;
  q.batch = a.batch;
  const sim::SystemStep step = sim::simulate_system_step(spec, q, a.engine);

  // Collective rows: name is the group, role the operation, busy_s the calls' summed time,
  // bytes and messages the bytes per call and the calls; algorithm and transport what ran.
  Table t({"kind", "name", "hardware", "stack", "host", "role", "busy_s", "bytes", "messages", "memory_gib",
           "capacity_gib", "status", "algorithm", "transport"});
  t.set_narrow_columns({"kind", "name", "hardware", "role", "busy_s", "bytes", "memory_gib", "capacity_gib", "status"});
  for (const auto& d : step.devices)
    t.add_row({"device", d.device, d.hardware, d.stack, d.host, d.role, num(d.busy_s), integer(0), integer(0),
               num(d.memory.need.total() / kGiB, 4), num(d.memory.capacity_bytes / kGiB, 4),
               d.memory.capacity_bytes <= 0 ? "unchecked" : d.memory.fits() ? "fits" : "infeasible", "", ""});
  for (const auto& l : step.lanes) {
    if (l.messages == 0) continue;  // lanes this step does not use
    t.add_row({"link", l.lane, l.link, "", "", "", num(l.busy_s), integer(std::int64_t(l.bytes)), integer(l.messages),
               num(0), num(0), "", "", ""});
  }
  std::string declined;
  for (const auto& c : step.collectives) {
    const std::string group = fmt::format("{}", fmt::join(c.ranks, "+"));
    const std::string& stack = step.devices[std::size_t(spec.device_index(c.ranks.front()))].stack;
    t.add_row({"collective", group, "", stack, "", c.op, num(c.busy_s), integer(std::int64_t(c.bytes)), integer(c.calls),
               num(0), num(0), "", c.algorithm, c.transport});
    if (!c.custom_declined.empty() && declined.find(group) == std::string::npos)
      declined += fmt::format("; vLLM's custom all-reduce declined on {}: {}", group, c.custom_declined);
  }
  t.add_row({"step", spec.name, "", a.engine, "", fmt::format("x={} context={} batch={}", a.x, a.context, a.batch),
             num(step.step_s), integer(0), integer(0), num(0), num(0), step.feasible ? "fits" : "infeasible", "", ""});
  t.set_footer(fmt::format("step {:.4g} s (target pass {:.4g} s){}{}", step.step_s, step.target_s, declined,
                           step.feasible ? "" : "; INFEASIBLE: a device's memory does not fit (see status)"));
  if (!a.trace.empty()) {
    std::ostringstream json;
    sim::write_chrome_trace(step.graph, step.run, json);
    write_file_atomic(a.trace, json.str());
  }
  print_table(t, a.format);
  return 0;
}

const RegisterCommand system_registration{
    "system", "One step of a system of devices and links: per-device time and memory, link traffic, timeline trace",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<SystemArgs>();
      sub.add_option("--system", a->system, "System config name (configs/systems) or path")->required();
      sub.add_option("--model", a->model, "Target model: config name (configs/models), NAME@FORMAT, or a YAML path")->required();
      sub.add_option("--draft", a->draft, "Draft model on the system's draft device (a model name)");
      sub.add_option("--x", a->x, "Tokens verified per sequence in the step")->default_val(1)->check(integer_in(1, 4096));  // a step of at most 4096 tokens per sequence
      sub.add_option("--context", a->context, "Context length L (tokens in the KV cache)")
          ->default_val(1024)
          ->check(integer_in(0, kMaxContext));
      sub.add_option("--batch", a->batch, "Sequences per step")->default_val(1)->check(integer_in(1, kMaxBatch));
      sub.add_option("--trace", a->trace, "Write the step's timeline as Chrome trace-event JSON (Perfetto)");
      sub.add_option("--baseline", a->baseline,
                     "Run a baseline of the system instead (a method under its baseline_stacks or baseline_tp_stacks, "
                     "e.g. tp-pp-vllm)");
      add_engine_option(sub, a->engine);
      add_format_option(sub, a->format);
      return [a, &g] { return run_system(*a, g); };
    },
    35};

}  // namespace
}  // namespace experiments
