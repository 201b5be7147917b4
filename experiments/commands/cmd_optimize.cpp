// specdse optimize: best verification length per context, speedup over AD and the regime.
#include <fmt/format.h>

#include "experiments/cli/acceptance_source.hpp"
#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/validation_status.hpp"
#include "experiments/cli/draft_placement_options.hpp"
#include "experiments/cli/workload_setup.hpp"

namespace experiments {
namespace {

struct OptimizeArgs {
  std::string hw, model, algorithm, task = "govreport", context, batch = "1", engine, format;
  AcceptanceOptions acceptance;
  int x_max = 128;
  std::string x_search = "every_x";
  bool measured_only = false;
  DraftPlacementNames placement;
};

int run_optimize(const OptimizeArgs& a, const GlobalOptions& g) {
  const auto reg = registry(g);
  const auto hw = reg.hardware(a.hw);
  const auto w = make_workload(reg, a.model, a.algorithm);
  const auto engine = make_engine(a.engine, hw);
  search::OptimizeOptions opt;
  opt.full_curve = a.x_search == "every_x";
  opt.x_max = a.x_max;
  opt.measured_x_only = a.measured_only;
  opt.draft_placement = resolve_draft_placement(reg, a.placement, a.engine, hw.name);
  Table t({"hw", "model", "algorithm", "task", "context", "batch", "ar_tokens_per_s", "best_x",
           "best_tokens_per_s", "speedup", "aat_at_best", "t_verify_s", "t_draft_s", "ridge_x", "regime", "aat_source", "at_search_limit", "aat_source_tables"});
  // The largest x searched: --x-max, or the algorithm's largest tree when that is smaller. A best
  // x there may only be the edge of the search, not the optimum.
  const bool tree_bound = w.algorithm && w.algorithm->max_x > 0 && w.algorithm->max_x < a.x_max;
  const int x_limit = tree_bound ? w.algorithm->max_x : a.x_max;
  const std::string limit_note =
      tree_bound ? fmt::format("x = {}: the algorithm's largest tree", x_limit)
                 : fmt::format("x = {}: raise --x-max", x_limit);
  // Measurements are keyed by the model config's own name, so a model given as a YAML path
  // finds them too.
  const AatResolver resolver(reg, a.acceptance, {w.target.name, a.algorithm, a.task}, w.algorithm.get(), a.x_max);
  // Every sequence of a batch verifies its own tree against its own context: T_v and T_d grow
  // with B, AAT does not; tokens/s are per sequence (DESIGN.md), the speed-up is over AD at the
  // same batch.
  const auto batches = parse_int_list("--batch", a.batch, 1, kMaxBatch);
  for (long long L : parse_int_list("--context", a.context, 0, kMaxContext))
    for (long long b : batches) {
      models::Workload wb = w;
      wb.batch = int(b);
      require_workload_fits(hw, wb, L, a.x_max);
      const auto aat = resolver.at(L);
      const auto r = search::optimize_context(*engine, wb, L, aat.source, opt);
      // A best x on the edge of the search, or on the largest measured x (beyond it AAT is the
      // fit's extrapolation), may only be the edge of what is known.
      std::string edge = r.best.x >= x_limit && x_limit > 1 ? limit_note : std::string();
      if (edge.empty()) edge = search::measured_edge_note(aat.source, r.best.x);
      t.add_row({hw.name, w.target.name, a.algorithm, a.task, integer(L), integer(b), num(r.ar.p_eff()),
                 integer(r.best.x), num(r.best.p_eff()), num(r.speedup(), 3), num(r.best.aat),
                 num(r.best.t_verify_s), num(r.best.t_draft_s), r.ridge_x ? num(*r.ridge_x, 3) : text(""),
                 text(r.regime ? roofline::to_string(*r.regime) : std::string()), aat.description,
                 edge, aat.source_tables});
    }
  std::string footer;
  if (!opt.draft_placement.is_same_device())
    footer = fmt::format("draft on {} over {}: t_draft_s is its passes there plus both link transfers",
                         opt.draft_placement.device(), opt.draft_placement.link());
  // optimize is the tree-sd scenario's command: its validation status ends the table.
  const std::string validation = validation_note("tree-sd", reg.dir());
  if (!validation.empty()) footer += (footer.empty() ? "" : "\n") + validation.substr(1);
  t.set_footer(footer);
  print_table(t, a.format);
  return 0;
}

const RegisterCommand reg{
    "optimize", "Best verification length x per context: P_eff = AAT / (T_v + T_d), speedup over AD",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<OptimizeArgs>();
      sub.add_option("--hw", a->hw, "Hardware config name")->required();
      sub.add_option("--model", a->model, "Target model config name")->required();
      // --algorithm names what drafts: an SD algorithm (configs/algorithms) or a draft model
      // (a standalone chain draft), as --draft does in latency / window / system; --draft is kept
      // here as a hidden alias so either spelling works.
      auto* algorithm = sub.add_option("--algorithm", a->algorithm,
                                       "SD algorithm (configs/algorithms) or a draft model name (chain draft)");
      auto* draft_alias = sub.add_option("--draft", a->algorithm)->group("");
      algorithm->excludes(draft_alias);
      sub.callback([algorithm, draft_alias] {
        if (algorithm->count() + draft_alias->count() == 0)
          throw CLI::RequiredError("--algorithm");
      });
      sub.add_option("--context", a->context, "Context lengths: 128,1024 or a range")->required();
      sub.add_option("--batch", a->batch,
                     "Sequences per step B, e.g. 1,8,32 (each with its own tree and context); tokens/s per sequence")
          ->default_val("1");
      sub.add_option("--task", a->task, "Task whose measured AAT to use")->default_val("govreport");
      add_acceptance_options(sub, a->acceptance);
      sub.add_option("--x-max", a->x_max, "Largest verification length considered")->default_val(128)->check(integer_in(1, kMaxVerificationLength));
      sub.add_flag("--measured-only", a->measured_only, "Evaluate only x with a measured AAT");
      sub.add_option("--x-search", a->x_search,
                     "every_x: T_v at every x (with ridge_x and regime); optimum: on the sim engine T_v only at "
                     "the x that can still be the best (same best, AD and speed-up; ridge_x and regime left empty)")
          ->default_val("every_x")
          ->check(CLI::IsMember({"every_x", "optimum"}));
      add_draft_placement_options(sub, a->placement);
      add_engine_option(sub, a->engine);
      add_format_option(sub, a->format);
      return [a, &g] { return run_optimize(*a, g); };
    },
    30};

}  // namespace
}  // namespace experiments
