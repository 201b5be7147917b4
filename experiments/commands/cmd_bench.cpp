// specdse bench: speed of the FPGA SystemC model (a benchmark, not a test; timings are never
// asserted). Cases:
//  - one Llama-3.1-8B step on V80 at x = 1 and x = 64 (L = 4096), event-driven and clocked, on
//    fresh engines so the simulation really runs (no memo hits): wall time, simulated cycles per
//    wall second, event/clocked speed ratio;
//  - the design-point cost: the regimes sweep (configs/sweeps/compute_bandwidth_ratio.yaml, 82
//    points, each one board and context optimised over x = 1..128 with target and draft steps)
//    on the sim engine with one worker, wall time per point; then with two workers (forked
//    processes, experiments/sweep/process_pool.hpp, or threads where this process may not fork),
//    and the parallel efficiency T1 / (2 T2); then the same points with x_search: optimum (T_v
//    only at the x that can still be the best: same best x, no ridge), one worker;
//  - the whole `reproduce all` on the roofline and the sim engine (every reproduction, no plots,
//    in worker processes as `reproduce all` runs them), wall and CPU time, and each reproduction's.
// Wall times are the machine's: on a shared machine the CPU time column is the steadier one.
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/scenario_runner.hpp"
#include "experiments/reproductions/reproduction.hpp"
#include "experiments/sweep/process_pool.hpp"
#include "experiments/sweep/scenario_sweep.hpp"
#include "experiments/sweep/sweep_runner.hpp"
#include "experiments/sweep/sweep_spec.hpp"
#include "models/config_error.hpp"
#include "sim/fpga/fpga_accelerator.hpp"
#include "sim/fpga/fpga_sim_engine.hpp"
#include "sim/io/temp_files.hpp"

namespace experiments {
namespace {

// The simulation work done since `before` (sim::fpga_simulation_work).
sim::FpgaSimulationWork work_since(const sim::FpgaSimulationWork& before) {
  const sim::FpgaSimulationWork now = sim::fpga_simulation_work();
  return {now.runs - before.runs, now.instructions - before.instructions,
          now.simulated_instructions - before.simulated_instructions};
}

struct BenchArgs {
  std::string hw = "v80", model = "llama-3.1-8b-instruct", format;
  long long context = 4096;
  bool skip_clocked = false, skip_sweep = false, skip_reproduce = false, skip_serve = false;
};

// Wall and CPU (user + system, all threads of this process and its worker processes) seconds of a
// piece of work.
struct Stopwatch {
  std::chrono::steady_clock::time_point wall0 = std::chrono::steady_clock::now();
  double cpu0 = cpu_now();
  // This process and its reaped children (a sweep's worker processes).
  static double cpu_now() {
    double total = 0;
    for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
      rusage u{};
      getrusage(who, &u);
      total += double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
    }
    return total;
  }
  double wall() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count(); }
  double cpu() const { return cpu_now() - cpu0; }
};

int run_bench(const BenchArgs& a, const GlobalOptions& g) {
  const auto reg = registry(g);
  const auto hw = reg.hardware(a.hw);
  // The benchmark runs the FPGA SystemC model, which needs an FPGA parameter block.
  if (!hw.fpga)
    throw models::InputError(fmt::format("bench: --hw must be an FPGA board, got '{}' ({})", hw.name, hw.kind));
  models::Workload w;
  w.target = reg.model(a.model);
  // simulated_instructions: issued one by one by the FPGA SystemC model (the rest fast-forwarded),
  // of program_instructions; both are the same on every machine, unlike the times (0 where a run
  // uses no FPGA model: the GPU and CPU models do not count theirs).
  Table t({"case", "engine", "workers", "x", "context", "wall_s", "cpu_s", "simulated_cycles", "cycles_per_wall_s",
           "t_verify_s", "program_instructions", "simulated_instructions"});
  double event_wall[2] = {0, 0}, clocked_wall[2] = {0, 0};
  const int xs[2] = {1, 64};
  for (int k = 0; k < 2; ++k)
    for (sim::SimMode mode : {sim::SimMode::event_driven, sim::SimMode::clocked}) {
      if (mode == sim::SimMode::clocked && a.skip_clocked) continue;
      // Best of five fresh engines (the machine is shared; the minimum is the repeatable one);
      // the clocked reference, a thousand times slower, runs once.
      double best = 1e30, best_cpu = 0;
      models::StepCost cost;
      sim::FpgaSimulationWork work;
      for (int rep = 0; rep < (mode == sim::SimMode::clocked ? 1 : 5); ++rep) {
        sim::FpgaSimEngine engine(hw, mode);
        const sim::FpgaSimulationWork before = sim::fpga_simulation_work();
        const Stopwatch sw;
        cost = engine.step(models::verify_graph(engine, w, xs[k], a.context), false);
        if (sw.wall() < best) best = sw.wall(), best_cpu = sw.cpu();
        work = work_since(before);
      }
      (mode == sim::SimMode::clocked ? clocked_wall : event_wall)[k] = best;
      t.add_row({fmt::format("{} step", w.target.name), mode == sim::SimMode::clocked ? "sim-clocked" : "sim",
                 integer(1), integer(xs[k]), integer(a.context), num(best), num(best_cpu), integer(cost.cycles),
                 num(double(cost.cycles) / best), num(cost.seconds), integer(work.instructions),
                 integer(work.simulated_instructions)});
    }
  std::vector<std::string> footer;
  if (!a.skip_clocked)
    footer.push_back(fmt::format("event-driven / clocked speed ratio: x=1 {:.0f}x, x=64 {:.0f}x",
                                 clocked_wall[0] / event_wall[0], clocked_wall[1] / event_wall[1]));
  if (!a.skip_sweep) {
    const std::string spec_path = reg.dir() + "/sweeps/compute_bandwidth_ratio.yaml";
    const SweepSpec spec = load_sweep_spec(spec_path);
    const auto indices = shard_indices(spec.size(), 0, 1);
    double wall[3] = {0, 0, 0};
    double cpu1 = 0;
    bool processes = false;
    sim::FpgaSimulationWork work1;  // one worker: in this process, so its counters see the work
    for (unsigned threads : {1u, 2u}) {
      processes = sweep_uses_processes("sim", threads);
      const sim::FpgaSimulationWork before = sim::fpga_simulation_work();
      const Stopwatch sw;
      compute_sweep_rows(spec, reg, indices, threads, "sim");
      wall[threads] = sw.wall();
      const sim::FpgaSimulationWork work = processes ? sim::FpgaSimulationWork{} : work_since(before);
      if (threads == 1) cpu1 = sw.cpu(), work1 = work;
      t.add_row({fmt::format("design points: regimes sweep, {} points (board x context, x = 1..128, target + draft){}",
                             indices.size(), processes ? ", worker processes" : ""),
                 "sim", integer(threads), integer(0), integer(0), num(sw.wall()), num(sw.cpu()), integer(0), num(0),
                 num(0), integer(work.instructions), integer(work.simulated_instructions)});
    }
    footer.push_back(fmt::format("design point on the sim engine: {:.1f} ms wall, {:.1f} ms CPU (1 worker); sweep on 2 "
                                 "workers ({}): {:.2f}x faster, parallel efficiency {:.0f} %",
                                 1e3 * wall[1] / double(indices.size()), 1e3 * cpu1 / double(indices.size()),
                                 processes ? "processes" : "threads", wall[1] / wall[2],
                                 100.0 * wall[1] / (2.0 * wall[2])));
    if (work1.runs > 0)
      footer.push_back(fmt::format(
          "design point's simulation work (the same on any machine): {} programs, {:.0f} k instructions of which {:.0f} k "
          "({:.0f} %) issued one by one, {:.0f} ns of CPU per issued instruction",
          work1.runs / (long long)indices.size(), 1e-3 * double(work1.instructions) / double(indices.size()),
          1e-3 * double(work1.simulated_instructions) / double(indices.size()),
          100.0 * double(work1.simulated_instructions) / double(std::max(1LL, work1.instructions)),
          1e9 * cpu1 / double(std::max(1LL, work1.simulated_instructions))));
    // The same points with x_search: optimum (T_v only where x can still be the best; the same
    // best x and speed-up, no ridge), one worker.
    SweepSpec optimum = spec;
    optimum.every_x = false;
    const sim::FpgaSimulationWork before = sim::fpga_simulation_work();
    const Stopwatch sw;
    compute_sweep_rows(optimum, reg, indices, 1, "sim");
    const sim::FpgaSimulationWork work = work_since(before);
    t.add_row({fmt::format("design points: regimes sweep, {} points, x_search: optimum", indices.size()), "sim",
               integer(1), integer(0), integer(0), num(sw.wall()), num(sw.cpu()), integer(0), num(0), num(0),
               integer(work.instructions), integer(work.simulated_instructions)});
    footer.push_back(fmt::format("design point, optimum only (x_search: optimum): {:.1f} ms wall, {:.1f} ms CPU "
                                 "(1 worker)",
                                 1e3 * sw.wall() / double(indices.size()), 1e3 * sw.cpu() / double(indices.size())));
  }
  if (!a.skip_sweep) {
    // A scenario sweep on the roofline engine (every point a chain-sd run on the system timeline):
    // its points share nothing but the configs, so two threads should take about half the time.
    // Best of three runs per thread count (the machine is shared).
    const auto spec = load_scenario_sweep_spec(reg.dir() + "/sweeps/chain_sd_grid.yaml");
    if (!spec) throw std::logic_error("bench: configs/sweeps/chain_sd_grid.yaml is not a scenario sweep");
    double best[3] = {0, 0, 0};
    for (unsigned threads : {1u, 2u}) {
      double best_cpu = 0;
      for (int rep = 0; rep < 3; ++rep) {
        ScenarioSweepOptions o;
        o.threads = threads;
        o.engine = "roofline";
        const Stopwatch sw;
        run_scenario_sweep(*spec, reg, o);
        if (rep == 0 || sw.wall() < best[threads]) best[threads] = sw.wall(), best_cpu = sw.cpu();
      }
      t.add_row({fmt::format("scenario sweep: chain_sd_grid, {} chain-sd points (system timeline)", spec->size()),
                 "roofline", integer(threads), integer(0), integer(0), num(best[threads]), num(best_cpu), integer(0),
                 num(0), num(0), integer(0), integer(0)});
    }
    footer.push_back(fmt::format("scenario sweep on the roofline engine ({} points): 2 threads {:.2f}x faster than 1",
                                 spec->size(), best[1] / best[2]));
  }
  if (!a.skip_serve) {
    // The serving simulator: one simulated hour at 10 requests/s on one H100 (about 36,000
    // requests), plain decoding and EAGLE-3, on each engine (step costs memoised by batch, tokens
    // per sequence and context bucket in the deployment's cost layer).
    for (const std::string engine : {"roofline", "sim"}) {
      ScenarioInputs in;
      in.hw = "h100-sxm";
      in.model = "llama-3.1-8b-instruct";
      in.engine = engine;
      in.params = {"rate=10", "duration-s=3600", "engine=" + engine};
      const Stopwatch sw;
      const auto r = run_scenario("serve", in, reg);
      long long requests = 0;
      for (const auto& row : r.rows) requests += std::get<std::int64_t>(row[3]);
      t.add_row({"serve: one hour at 10 requests/s on h100-sxm, no SD and eagle3", engine, integer(1), integer(0),
                 integer(0), num(sw.wall()), num(sw.cpu()), integer(0), num(0), num(0), integer(0), integer(0)});
      footer.push_back(fmt::format("serve --rate 10 --duration-s 3600 on the {} engine: {} requests simulated (both "
                                   "methods) in {:.2f} s wall",
                                   engine, requests, sw.wall()));
    }
  }
  // `reproduce all` on each engine, as it runs: side by side in worker processes where this
  // process may fork, the long-running ones started first.
  const std::vector<std::string> engines =
      a.skip_reproduce ? std::vector<std::string>{} : std::vector<std::string>{"roofline", "sim"};
  for (const std::string& engine : engines) {
    const auto out = std::filesystem::path(sim::temporary_folder("bench's reproduction outputs")) /
                     fmt::format("specdse_bench_{}", ::getpid());
    const auto table = reproduction_table();
    std::vector<const Reproduction*> chosen;
    for (const auto& r : table) chosen.push_back(&r);
    const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
    const bool processes = workers > 1 && fork_is_safe();
    auto run_one = [&](std::size_t k) {
      ReproduceContext ctx;
      ctx.registry = &reg;
      ctx.engine = engine;
      ctx.quiet = true;
      ctx.out_dir = (out / table[k].name).string();
      const sim::FpgaSimulationWork before = sim::fpga_simulation_work();
      const Stopwatch sw;
      table[k].run(ctx);
      const double wall = sw.wall(), cpu = sw.cpu();
      const sim::FpgaSimulationWork work = work_since(before);
      return fmt::format("{} {} {} {}", wall, cpu, work.instructions, work.simulated_instructions);
    };
    std::vector<std::string> times(table.size());
    const Stopwatch all;
    if (processes)
      run_in_worker_processes(table.size(), workers, run_one,
                              [&](std::size_t k, const std::string& text) { times[k] = text; }, start_order(chosen));
    else
      for (std::size_t k = 0; k < table.size(); ++k) times[k] = run_one(k);
    const double all_wall = all.wall(), all_cpu = all.cpu();
    for (std::size_t k = 0; k < table.size(); ++k) {
      double wall = 0, cpu = 0;
      long long instructions = 0, simulated = 0;
      std::istringstream(times[k]) >> wall >> cpu >> instructions >> simulated;
      t.add_row({"reproduce " + table[k].name, engine, integer(1), integer(0), integer(0), num(wall), num(cpu),
                 integer(0), num(0), num(0), integer(instructions), integer(simulated)});
    }
    std::filesystem::remove_all(out);
    t.add_row({"reproduce all (no plots)", engine, integer(processes ? workers : 1), integer(0), integer(0),
               num(all_wall), num(all_cpu), integer(0), num(0), num(0), integer(0), integer(0)});
    footer.push_back(fmt::format("reproduce all --engine {}: {:.2f} s wall on {} {}, {:.2f} s CPU", engine, all_wall,
                                 processes ? workers : 1, processes ? "worker processes" : "thread", all_cpu));
  }
  std::string text;
  for (const auto& f : footer) text += (text.empty() ? "" : "\n") + f;
  t.set_footer(text);
  print_table(t, a.format);
  if (a.format != "table" && !text.empty()) std::cerr << text << "\n";
  return 0;
}

const RegisterCommand bench_registration{
    "bench",
    "Benchmark the FPGA SystemC model: step wall time, cycles/s, event vs clocked, design-point cost, 2-thread "
    "sweep efficiency, reproduce all wall time on the roofline and sim engines",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<BenchArgs>();
      sub.add_option("--hw", a->hw, "FPGA board")->default_val("v80");
      sub.add_option("--model", a->model, "Target model")->default_val("llama-3.1-8b-instruct");
      sub.add_option("--context", a->context, "Context length L")->default_val(4096)->check(integer_in(0, kMaxContext));
      sub.add_flag("--skip-clocked", a->skip_clocked, "Skip the (slow) clocked reference runs");
      sub.add_flag("--skip-sweep", a->skip_sweep, "Skip the design-point / 2-thread sweep timing");
      sub.add_flag("--skip-reproduce", a->skip_reproduce, "Skip timing reproduce all (roofline and sim engines)");
      sub.add_flag("--skip-serve", a->skip_serve, "Skip timing the serving simulator (an hour at 10 requests/s)");
      add_format_option(sub, a->format);
      return [a, &g] { return run_bench(*a, g); };
    },
    95};

}  // namespace
}  // namespace experiments
