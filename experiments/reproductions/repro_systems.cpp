// reproduce systems: the systems layer on the papers' testbeds: one decode step of each testbed
// on the timeline, and the Chrome trace + Gantt chart of a SpecPipe pipeline step. (Paper 002
// Table 1, the per-GPU memory, is `reproduce specpipe-table1`.)
#include <fmt/format.h>

#include <algorithm>

#include <sstream>

#include "experiments/reproductions/repro_support.hpp"
#include "models/system_spec.hpp"
#include "sim/system/system_step.hpp"

namespace experiments::repro_systems {
namespace {

// A 64-node tree level per step, the tree width paper 002 §4.2 settles on.
constexpr int kSpecPipeWidth = 64;

ReproductionResult systems(const ReproduceContext& ctx) {
  const auto& reg = *ctx.registry;
  ReproductionResult res;
  res.title = "Systems: one decode step of each paper's testbed on the timeline";

  // One step of each testbed.
  struct Testbed { const char* system; const char* target; const char* draft; int x; };
  const Testbed testbeds[] = {{"specpipe-8x3090-pcie", "llama-3.1-70b", "llama-3.2-1b", kSpecPipeWidth},
                              {"specpipe-2srv-3090-4090-eth", "llama-3.1-70b", "llama-3.2-1b", kSpecPipeWidth},
                              {"duodecoding-a800-xeon", "llama-2-7b", "llama-68m@q5_k_m", 8},
                              {"eagle-8xh100-nvlink", "llama-3.1-70b", nullptr, 8}};
  Table steps({"system", "target", "draft", "x", "context", "step_s", "target_pass_s", "busiest_device_s",
               "link_bytes", "link_busy_s", "feasible"});
  for (const Testbed& tb : testbeds) {
    sim::SystemQuery sq;
    sq.target = reg.model(tb.target);
    if (tb.draft) sq.draft = reg.model(tb.draft);
    sq.x = tb.x;
    sq.context = 1024;

    const auto spec = models::load_system(reg.path("systems", tb.system), reg);
    const auto system_files = spec.config_files();  // the system with its hardware, stacks and links
    res.inputs.insert(res.inputs.end(), system_files.begin(), system_files.end());
    const sim::SystemStep step = sim::simulate_system_step(spec, sq, ctx.engine);
    double busiest = 0, bytes = 0, link_busy = 0;
    for (const auto& d : step.devices) busiest = std::max(busiest, d.busy_s);
    for (const auto& l : step.lanes) bytes += l.bytes, link_busy += l.busy_s;
    steps.add_row({tb.system, tb.target, tb.draft ? tb.draft : "", integer(tb.x), integer(sq.context), num(step.step_s),
                   num(step.target_s), num(busiest), integer(std::int64_t(bytes)), num(link_busy),
                   step.feasible ? "yes" : "no"});
    if (std::string(tb.system) == "specpipe-8x3090-pcie") {
      std::ostringstream json;
      sim::write_chrome_trace(step.graph, step.run, json);
      write_file_atomic(ctx.out_dir + "/specpipe_step_trace.json", json.str());
    }
  }
  res.table = std::move(steps);
  res.notes =
      "One decode step per testbed at context 1024 (x = tree level width or draft length); "
      "specpipe_step_trace.json opens in Perfetto (ui.perfetto.dev). Per-GPU memory: reproduce specpipe-table1.";
  res.plots.push_back(plot_script("system_timeline", {ctx.out_dir + "/specpipe_step_trace.json", "specpipe_step.png",
                                                      "specpipe-8x3090-pcie: Llama-3.1-70B, 8 stages, L40 draft, x=64"}));
  return res;
}

const RegisterReproduction systems_registration{"systems",
                               "Systems: one decode step of each paper's testbed on the timeline, SpecPipe step trace",
                               systems, 95};

}  // namespace
}  // namespace experiments::repro_systems
