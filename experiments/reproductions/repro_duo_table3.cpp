// Paper 003 Table 3: DuoDecoding's tokens/s as the draft budget moves around the hardware-aware
// budget (one draft sequence), on the paper's testbed (A800 target, 16-core Xeon draft, PCIe
// 4.0; configs/systems/duodecoding-a800-xeon.yaml), Llama-2-7B FP16 / Llama-68M Q5_K_M.
// Acceptance: the acceptance process fitted to paper 003 Table 4's check confusion
// (configs/acceptance/processes/duodecoding-paper003.yaml; the `alpha` column shows its mean
// per-token acceptance); 0.7 and 0.9 are stated independent alphas that show how the shape
// depends on acceptance.
#include <fmt/format.h>

#include <algorithm>

#include "experiments/reproductions/paper003_reference.hpp"
#include "experiments/reproductions/repro_duo_support.hpp"
#include "experiments/reproductions/repro_support.hpp"
#include "search/scenarios/duodecoding/duo_scenario.hpp"

namespace experiments::repro_duo_table3 {
namespace {

namespace duo = search::duodecoding;

constexpr int kSweepRange = 6;          // budgets hardware-aware +- this (Table 3 shows +-2)
constexpr long long kTokens = 2048;
constexpr std::uint64_t kSeed = 1;
constexpr double kPlateau = 0.005;      // "ties": within 0.5 % of the best tokens/s
constexpr int kTopK = 4;                // candidates the generator draws per drafted position

ReproductionResult table3(const ReproduceContext& ctx) {
  // Paper 003 Table 4's top-1 acceptance is alpha; Table 3 (tokens/s per budget offset, display
  // only) has rows budget - 2 .. budget + 2 around its hardware-aware budget.
  // The first group draws from the acceptance process fitted to Table 4 (its `alpha` column is the
  // process's mean per-token acceptance); the others are independent at stated alphas.
  const Paper003Table3 paper_table3 = paper003_table3(ctx.registry->dir());
  paper003::Testbed tb = paper003::testbed(ctx, kTokens);
  duo::DuoRequest& q = tb.request;
  const int hw = duo::hardware_aware_budget(q.costs);

  ReproductionResult res =
      paper003::testbed_result(ctx, tb, "Paper 003 Table 3: budget sweep around the hardware-aware budget",
                               {"paper003_table3", "paper003_table4"}, "one sequence");
  Table t({"alpha", "budget", "offset", "tokens_per_s", "relative_to_hardware_budget", "target_idle_fraction",
           "draft_idle_fraction", "tokens_per_iteration", "iteration_s", "best", "paper_budget", "paper_mt_relative",
           "paper_trans_relative", "paper_math_relative", "paper_code_relative"});
  std::string summary;
  for (double alpha : {tb.process.mean_acceptance(), 0.7, 0.9}) {
    q.stream = tb.stream_at(alpha, kTopK, kSeed);
    std::vector<int> budgets;
    for (int b = std::max(1, hw - kSweepRange); b <= hw + kSweepRange; ++b) budgets.push_back(b);
    const auto sweep = duo::budget_sweep(q, budgets);
    const int best = duo::best_budget(sweep);
    double hw_rate = 0, best_rate = 0;
    for (const auto& [b, run] : sweep) {
      if (b == hw) hw_rate = run.tokens_per_s;
      best_rate = std::max(best_rate, run.tokens_per_s);
    }
    // Budgets within kPlateau of the best: below the coefficient the step keeps the target's
    // time, so budgets whose extra tokens are rarely reached tie to a few parts in a thousand.
    int lo = budgets.back(), hi = budgets.front();
    for (const auto& [b, run] : sweep)
      if (run.tokens_per_s >= (1 - kPlateau) * best_rate) lo = std::min(lo, b), hi = std::max(hi, b);
    for (const auto& [b, run] : sweep) {
      const int off = b - hw;
      std::vector<Cell> row{num(alpha), integer(b), integer(off), num(run.tokens_per_s),
                            num(run.tokens_per_s / hw_rate), num(run.target_idle_fraction),
                            num(run.draft_idle_fraction), num(run.tokens_per_iteration), num(run.mean_iteration_s),
                            text(b == best ? "yes" : "")};
      if (const auto paper = paper_table3.by_offset.find(off); paper != paper_table3.by_offset.end()) {
        row.push_back(integer(paper_table3.hardware_aware_budget + off));
        paper003::append_task_ratios(row, paper->second, paper_table3.by_offset.at(0));
      } else {
        for (int k = 0; k < 5; ++k) row.push_back(text(""));
      }
      t.add_row(std::move(row));
    }
    summary += fmt::format("{}alpha {:.3g}: best budget {} ({:+d}), within 0.5 % of it {}..{}", summary.empty() ? "" : "; ",
                           alpha, best, best - hw, lo, hi);
  }
  res.table = std::move(t);
  res.notes = fmt::format(
      "Hardware-aware budget {} = floor(cost coefficient {:.2f}: target forward {:.3f} ms on the A800 / draft pass "
      "{:.3f} ms on the Xeon, both from the {} engine at context {}); the paper's testbed used 24. {}. Below the "
      "coefficient the draft finishes early and the CPU idles (draft_idle_fraction), above it the GPU waits "
      "(target_idle_fraction), the two regimes of the paper's §4.4.1. With the Table 4 process (mean per-token acceptance "
      "about 0.5) tokens beyond the first few of a draft are rarely reached, so budgets below the coefficient tie (the paper's variations are within 2 % too); "
      "the best budget then sits at the low end only because a shorter pending draft makes the target's forward a "
      "few microseconds shorter. "
      "Paper columns: each task's tokens/s over its budget-24 row, display only; the paper's rows are assumed to be "
      "budgets 22..26 in order.",
      hw, q.costs.cost_coefficient(), q.costs.target_forward_s(1) * 1e3, q.costs.draft_pass_s() * 1e3, ctx.engine,
      q.costs.context(), summary);
  return res;
}

const RegisterReproduction duo_table3_registration{"duo-table3", "Paper 003 Table 3: DuoDecoding budget sweep around the hardware-aware budget",
                               table3, 120};

}  // namespace
}  // namespace experiments::repro_duo_table3
