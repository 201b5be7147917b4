// specdse duo: the DuoDecoding scenario (paper 003): the draft drafts on its device (the CPU of
// the paper's testbed) while the target verifies the previous draft on the GPU, iteration by
// iteration on the system timeline, against autoregressive decoding (AD) and sequential
// speculative decoding (SpS) over the same acceptance stream; the hardware-aware budget, a
// budget sweep around it, the draft-sequence statistics and TTFT.
#include <fmt/format.h>

#include <optional>

#include <algorithm>
#include <sstream>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/validation_status.hpp"
#include "experiments/output/duo_ttft_table.hpp"
#include "experiments/reproductions/paper003_reference.hpp"
#include "models/config_error.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "search/scenarios/duodecoding/duo_scenario.hpp"

namespace experiments {
namespace {

// Largest --tokens and --prompt: the duodecoding scenario's declared bound.
constexpr long long kMaxDuoTokens = 1000000;

namespace duo = search::duodecoding;

struct DuoArgs {
  duo::DuoNames names;  // --system, --model, --draft, --engine, the devices, --prompt, --tokens
  std::string format, budget = "auto", sequences = "dynamic", trace, trace_out, show = "summary", acceptance;
  double alpha = -1;
  int max_sequences = 4, sps_gamma = 0, sweep_range = 4;
  std::uint64_t seed = 1;
};

int run_duo(const DuoArgs& a, const GlobalOptions& g) {
  const auto reg = registry(g);
  if ((a.alpha >= 0) + !a.trace.empty() + !a.acceptance.empty() > 1)
    throw models::InputError("duo: give at most one acceptance source: --acceptance BAND, --alpha A or --trace FILE");
  if (a.sweep_range < 0) throw models::InputError(fmt::format("--sweep-range: expected >= 0, got {}", a.sweep_range));
  const int budget = duo::parse_budget(a.budget);
  const duo::SequencePolicy policy = duo::parse_sequences(a.sequences, a.max_sequences);
  // The acceptance band is read before the request is made: making it may run SystemC (GPU
  // streams), and the YAML reader's internal exceptions after a SystemC run trip ASan's known
  // false positive (.ci/run). Reading first also reports a bad band before any costing.
  std::optional<search::ProcessBand> band;
  if (a.trace.empty() && a.alpha < 0)
    band = search::resolve_process_band(a.acceptance.empty() ? "duodecoding-paper003" : a.acceptance, reg.dir(), "--acceptance");
  duo::DuoRequest q = duo::make_duo_request(reg, a.names);
  // Default acceptance: the central member of the process band fitted to paper 003 Table 4
  // (`specdse scenario duodecoding` also reports the range over the band).
  std::string acceptance_note;
  if (!a.trace.empty()) {
    q.stream = duo::acceptance_stream_from_file(a.trace);
  } else if (a.alpha >= 0) {
    q.stream = duo::PositionStream::calibrated(a.alpha, duo::kGeneratorTopK, a.seed);
  } else {
    q.stream = duo::PositionStream::from_process(search::AcceptanceProcess(band->central().params, band->name),
                                                 duo::kGeneratorTopK, a.seed);
    acceptance_note = fmt::format("; acceptance: process band {} (central member of {}; fitted to {})", band->name,
                                  band->members.size(), band->fitted_to);
  }
  q.budget = budget;
  q.policy = policy;
  q.sps_gamma = a.sps_gamma;
  const duo::DuoReport r = duo::run_duo_scenario(q);
  const auto& sys = q.placement.system;
  const std::string where = fmt::format(
      "target on {}, draft on {}, SpS draft on {}", sys.devices[std::size_t(q.placement.target_device)].name,
      sys.devices[std::size_t(q.placement.draft_device)].name,
      sys.devices[std::size_t(duo::sps_placement(q).draft_device)].name);
  const std::string footer = fmt::format(
      "cost coefficient {:.3f} (target forward {:.4g} s / draft pass {:.4g} s) -> hardware-aware budget {}; budget "
      "used {}; SpS gamma {}; {}; acceptance: {}{}",
      r.cost_coefficient, q.costs.target_forward_s(1), q.costs.draft_pass_s(), r.hardware_budget, r.budget, r.sps_gamma,
      where, q.stream.source(), r.duo.plan.source_exhausted ? " (trace ended the run)" : "") + acceptance_note;
  // The scenario's validation status ends every table.
  const std::string validation = validation_note("duodecoding", reg.dir());

  if (a.show == "summary") {
    Table t({"method", "budget", "sequences", "tokens", "time_s", "tokens_per_s", "speedup_vs_ad", "speedup_vs_sps",
             "target_idle_fraction", "draft_idle_fraction", "tokens_per_iteration", "processed_tokens_per_iteration",
             "iteration_s", "target_forward_s", "draft_s", "comm_s", "ttft_s", "ttft_vs_ad", "ttft_vs_sps"});
    auto row = [&](const duo::ScenarioRun& run, const std::string& seq, double ttft) {
      t.add_row({duo::to_string(run.plan.method), integer(run.plan.budget), seq, integer(run.plan.tokens),
                 num(run.seconds), num(run.tokens_per_s), num(run.tokens_per_s / r.ad.tokens_per_s),
                 num(run.tokens_per_s / r.sps.tokens_per_s), num(run.target_idle_fraction),
                 num(run.draft_idle_fraction), num(run.tokens_per_iteration), num(run.processed_per_iteration),
                 num(run.mean_iteration_s), num(run.mean_target_s), num(run.mean_draft_s), num(run.mean_comm_s),
                 num(ttft), num(ttft / r.ttft.ad_s), num(ttft / r.ttft.sps_s)});
    };
    row(r.ad, "0", r.ttft.ad_s);
    row(r.sps, "static:1", r.ttft.sps_s);
    row(r.duo, a.sequences, r.ttft.duo_parallel_s);
    t.set_footer(footer + validation);
    print_table(t, a.format);
  } else if (a.show == "sequences") {
    Table t({"kind", "sequences", "top1_accepted", "iterations", "fraction", "paper_fraction"});
    long long total = 0;
    for (const auto& [n, c] : r.duo.plan.sequence_counts) total += c;
    for (const auto& [n, c] : r.duo.plan.sequence_counts)
      t.add_row({"count", integer(n), "", integer(c), num(double(c) / double(std::max(1LL, total))), ""});
    const auto& m = r.duo.plan.confusion;
    // Paper 003 Table 4 (configs/reference/paper003_table4.yaml), for comparison only.
    const auto paper = paper003_table4(reg.dir()).confusion;
    const long long verified = m[0][0] + m[0][1] + m[1][0] + m[1][1];
    for (int acc : {1, 0})
      for (int many : {0, 1})
        t.add_row({"confusion", many ? ">1" : "1", acc ? "yes" : "no", integer(m[acc][many]),
                   num(double(m[acc][many]) / double(std::max(1LL, verified))), num(paper[acc][many])});
    t.set_footer(footer + "; confusion over the iterations whose draft reached verification (paper 003 Table 4)" + validation);
    print_table(t, a.format);
  } else if (a.show == "sweep") {
    std::vector<int> budgets;
    for (int b = std::max(1, r.hardware_budget - a.sweep_range); b <= r.hardware_budget + a.sweep_range; ++b)
      budgets.push_back(b);
    const auto sweep = duo::budget_sweep(q, budgets);
    const int best = duo::best_budget(sweep);
    double hw_rate = 0;
    for (const auto& [b, run] : sweep)
      if (b == r.hardware_budget) hw_rate = run.tokens_per_s;
    Table t({"budget", "offset", "tokens_per_s", "relative_to_hardware_budget", "target_idle_fraction",
             "draft_idle_fraction", "tokens_per_iteration", "iteration_s", "best"});
    for (const auto& [b, run] : sweep)
      t.add_row({integer(b), integer(b - r.hardware_budget), num(run.tokens_per_s), num(run.tokens_per_s / hw_rate),
                 num(run.target_idle_fraction), num(run.draft_idle_fraction), num(run.tokens_per_iteration),
                 num(run.mean_iteration_s), b == best ? "yes" : ""});
    t.set_footer(footer + fmt::format("; best budget {} (one sequence, as paper 003 Table 3)", best) + validation);
    print_table(t, a.format);
  } else if (a.show == "ttft") {
    Table t = duo_ttft_table(r.ttft);
    t.set_footer(footer + fmt::format("; prompt {} tokens", a.names.prompt) + validation);
    print_table(t, a.format);
  } else if (a.show == "iterations") {
    Table t({"iteration", "x", "draft_passes", "sequences", "tokens_appended", "end_s", "iteration_s", "target_forward_s",
             "draft_s", "comm_s"});
    for (std::size_t i = 0; i < r.duo.timing.size(); ++i) {
      const auto& it = r.duo.plan.iterations[i];
      const auto& ti = r.duo.timing[i];
      t.add_row({integer(std::int64_t(i)), integer(it.x), integer(it.draft_passes), integer(it.sequences),
                 integer(it.gained), num(ti.end_s, 6), num(ti.iteration_s), num(ti.target_s), num(ti.draft_s),
                 num(ti.comm_s)});
    }
    t.set_footer(footer + validation);
    print_table(t, a.format);
  } else {
    throw models::InputError(
        fmt::format("--show: expected summary, sequences, sweep, ttft or iterations, got '{}'", a.show));
  }
  if (!a.trace_out.empty()) {
    std::ostringstream json;
    sim::write_chrome_trace(r.duo.graph, r.duo.run, json);
    write_file_atomic(a.trace_out, json.str());
  }
  return 0;
}

const RegisterCommand duo_registration{
    "duo",
    "DuoDecoding (paper 003): draft on the CPU in parallel with the target on the GPU, vs AD and SpS, on the timeline",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<DuoArgs>();
      sub.add_option("--system", a->names.system, "System config name (configs/systems) or path")->required();
      sub.add_option("--model", a->names.model, "Target model (configs/models)")->required();
      sub.add_option("--draft", a->names.draft, "Draft model, MODEL@FORMAT for quantised weights (llama-68m@q5_k_m)")
          ->required();
      sub.add_option("--draft-device", a->names.draft_device,
                     "Device of the system that runs the draft (default: the system's placement.draft)");
      sub.add_option("--sps-draft-device", a->names.sps_draft_device,
                     "Device on which the SpS baseline drafts (default: DuoDecoding's draft device)");
      sub.add_option("--sps-draft", a->names.sps_draft, "Draft model of the SpS baseline (default: --draft)");
      sub.add_option("--budget", a->budget, "Draft passes per iteration: N >= 1, or auto (hardware-aware)")
          ->default_val("auto");
      sub.add_option("--sequences", a->sequences, "static:N or dynamic (paper 003 §3.2)")->default_val("dynamic");
      sub.add_option("--max-sequences", a->max_sequences, "Cap of the dynamic rule")->default_val(4);
      sub.add_option("--acceptance", a->acceptance,
                     "Acceptance process band, NAME (configs/acceptance/processes) or FILE; default duodecoding-paper003, "
                     "fitted to paper 003 Table 4");
      sub.add_option("--alpha", a->alpha,
                     "Instead of the process: a fixed per-token acceptance of the calibrated seeded generator, in (0, 1)")
          ->check(open_probability());
      sub.add_option("--trace", a->trace, "Acceptance trace: a probability trace or a chain trace (DESIGN.md)");
      sub.add_option("--seed", a->seed, "Generator seed")->default_val(1);
      // The same bounds as the duodecoding scenario's `tokens` and `prompt` (a run is simulated
      // token by token: 10^6 tokens take minutes already).
      sub.add_option("--tokens", a->names.tokens, "Tokens to generate")->default_val(1024)->check(integer_in(1, kMaxDuoTokens));
      sub.add_option("--prompt", a->names.prompt, "Prompt tokens (prefill, TTFT); decode steps start at this context and grow with the generated tokens")
          ->default_val(256)
          ->check(integer_in(1, kMaxDuoTokens));
      sub.add_option("--sps-gamma", a->sps_gamma, "SpS window (0: paper 001's best for the acceptance)")
          ->default_val(0)
          ->check(CLI::Range(0, 4096));
      sub.add_option("--sweep-range", a->sweep_range, "--show sweep: budgets hardware-aware +- this")->default_val(4);
      sub.add_option("--show", a->show, "summary | sequences | sweep | ttft | iterations")->default_val("summary");
      sub.add_option("--trace-out", a->trace_out, "Write the DuoDecoding run's timeline as Chrome trace JSON");
      add_engine_option(sub, a->names.engine);
      add_format_option(sub, a->format);
      return [a, &g] { return run_duo(*a, g); };
    },
    37};

}  // namespace
}  // namespace experiments
