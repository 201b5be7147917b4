// plain: autoregressive decoding of the target on the system's placement (pipeline stages,
// tensor-parallel groups or one device), one token per step: the baseline every speed-up in
// `specdse plan` is measured against. Timed by the system step (sim/system/system_step.hpp) as
// `specdse system` times it, with its memory check.
#include <fmt/format.h>

#include <sstream>

#include "search/plan/plan_scheme.hpp"
#include "sim/system/system_step.hpp"

namespace search::plain_scheme {
namespace {

std::string placement_words(const models::SystemSpec& s) {
  std::string devices;
  for (const auto& st : s.stages) {
    std::string group;
    for (int d : st.devices) group += (group.empty() ? "" : "+") + s.devices[std::size_t(d)].name;
    devices += (devices.empty() ? "" : ", ") + group;
  }
  if (s.stages.size() > 1) return fmt::format("target pipelined over {} stages ({})", s.stages.size(), devices);
  if (s.stages.front().devices.size() > 1) return "target tensor parallel on " + devices;
  return "target on " + devices;
}

std::vector<PlanCandidate> run_plain(const PlanSetup& s) {
  sim::SystemQuery q;
  q.target = s.target;
  q.x = 1;
  q.context = s.context;
  q.batch = s.batch;
  q.task_names = s.want_trace;
  auto step = std::make_shared<sim::SystemStep>(sim::simulate_system_step(s.system, q, s.engine));
  PlanCandidate c("plain", placement_words(s.system));
  c.parameters = "one token per step";
  c.acceptance = "none (no speculation)";
  if (!step->feasible) {
    for (const auto& d : step->devices)
      if (!d.memory.fits()) {
        c.status = sim::fit_status(d.memory) + " on " + d.device;
        break;
      }
    return {c};
  }
  c.tbt_s = c.tbt_low_s = c.tbt_high_s = step->step_s;
  c.why = fmt::format("one target pass per token: {:.3g} ms", step->step_s * 1e3);
  // One device: its plain step is `latency`'s T_v at x = 1 under the device's stack.
  c.reproduce = reproduce_command(s, s.single_hw ? "latency " + s.hw_args(s.target_device()) + " --x 1"
                                                 : "system --system " + s.system_arg());
  if (s.want_trace)
    c.write_trace = sim::chrome_trace_writer({step, &step->graph}, {step, &step->run});
  return {c};
}

const PlanSchemeRegistration plain_registration{
    {"plain", "autoregressive decoding on the system's placement: the baseline", 0, run_plain}};

}  // namespace
}  // namespace search::plain_scheme
