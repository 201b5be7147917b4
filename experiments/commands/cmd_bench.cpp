// specdse bench: speed of the FPGA SystemC model (a benchmark, not a test). Each case builds a
// fresh engine so the simulation really runs (no memo hits): one Llama-3.1-8B step on V80 at
// x = 1 and x = 64 (L = 4096) event-driven and clocked, simulated cycles per wall second, the
// event/clocked speed ratio, and the wall time of the whole `reproduce table4 --engine sim`.
#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "experiments/cli/cli_common.hpp"
#include "experiments/reproductions/reproduction.hpp"
#include "models/config_error.hpp"
#include "sim/fpga/fpga_sim_engine.hpp"

namespace experiments {
namespace {

struct BenchArgs {
  std::string hw = "v80", model = "llama-3.1-8b-instruct", format;
  long long context = 4096;
  bool skip_clocked = false, skip_table4 = false;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run_bench(const BenchArgs& a, const GlobalOptions& g) {
  const auto reg = registry(g);
  const auto hw = reg.hardware(a.hw);
  if (hw.kind != models::HardwareKind::fpga)
    throw models::InputError(fmt::format("bench: --hw must be an FPGA board, got '{}' ({})", hw.name,
                                         models::to_string(hw.kind)));
  models::Workload w;
  w.target = reg.model(a.model);
  Table t({"case", "engine", "x", "context", "wall_s", "simulated_cycles", "cycles_per_wall_s", "t_verify_s"});
  double event_wall[2] = {0, 0}, clocked_wall[2] = {0, 0};
  const int xs[2] = {1, 64};
  for (int k = 0; k < 2; ++k)
    for (sim::SimMode mode : {sim::SimMode::event_driven, sim::SimMode::clocked}) {
      if (mode == sim::SimMode::clocked && a.skip_clocked) continue;
      // Best of five fresh engines (the machine is shared; the minimum is the repeatable one);
      // the clocked reference, a thousand times slower, runs once.
      double best = 1e30;
      models::StepCost cost;
      for (int rep = 0; rep < (mode == sim::SimMode::clocked ? 1 : 5); ++rep) {
        sim::FpgaSimEngine engine(hw, mode);
        const auto t0 = std::chrono::steady_clock::now();
        cost = engine.step(models::verify_graph(engine, w, xs[k], a.context), false);
        best = std::min(best, seconds_since(t0));
      }
      (mode == sim::SimMode::clocked ? clocked_wall : event_wall)[k] = best;
      t.add_row({fmt::format("{} step", w.target.name), mode == sim::SimMode::clocked ? "sim-clocked" : "sim",
                 integer(xs[k]), integer(a.context), num(best), integer(cost.cycles),
                 num(double(cost.cycles) / best), num(cost.seconds)});
    }
  std::string footer;
  if (!a.skip_clocked)
    footer = fmt::format("event-driven / clocked speed ratio: x=1 {:.0f}x, x=64 {:.0f}x", clocked_wall[0] / event_wall[0],
                         clocked_wall[1] / event_wall[1]);
  if (!a.skip_table4) {
    for (const auto& r : reproduction_table())
      if (r.name == "table4") {
        ReproduceContext ctx;
        ctx.registry = &reg;
        ctx.engine = "sim";
        ctx.quiet = true;
        const auto t0 = std::chrono::steady_clock::now();
        r.run(ctx);
        const double wall = seconds_since(t0);
        t.add_row({"reproduce table4 (4 boards x 4 contexts x x = 1..128, target + draft)", "sim", integer(0),
                   integer(0), num(wall), integer(0), num(0), num(0)});
      }
  }
  t.set_footer(footer);
  print_table(t, a.format);
  if (a.format != "table" && !footer.empty()) std::cerr << footer << "\n";
  return 0;
}

const RegisterCommand reg{
    "bench", "Benchmark the FPGA SystemC model: step wall time, cycles/s, event vs clocked, table4 wall time",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<BenchArgs>();
      sub.add_option("--hw", a->hw, "FPGA board")->default_val("v80");
      sub.add_option("--model", a->model, "Target model")->default_val("llama-3.1-8b-instruct");
      sub.add_option("--context", a->context, "Context length L")->default_val(4096);
      sub.add_flag("--skip-clocked", a->skip_clocked, "Skip the (slow) clocked reference runs");
      sub.add_flag("--skip-table4", a->skip_table4, "Skip timing reproduce table4");
      add_format_option(sub, a->format);
      return [a, &g] { return run_bench(*a, g); };
    },
    95};

}  // namespace
}  // namespace experiments
