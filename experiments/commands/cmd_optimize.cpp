// specdse optimize: best verification length per context, speedup over AD and the regime.
#include <fmt/format.h>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/draft_placement_options.hpp"
#include "experiments/cli/workload_setup.hpp"

namespace experiments {
namespace {

struct OptimizeArgs {
  std::string hw, model, algorithm, task = "govreport", context, data, source_table, engine, format;
  int x_max = 128;
  bool measured_only = false;
  DraftPlacementNames placement;
};

int run_optimize(const OptimizeArgs& a, const GlobalOptions& g) {
  const auto reg = registry(g);
  const auto hw = reg.hardware(a.hw);
  const auto w = make_workload(reg, a.model, a.algorithm);
  const auto engine = make_engine(a.engine, hw);
  const auto data = search::AcceptanceData::load(a.data.empty() ? search::default_acceptance_path() : a.data);
  search::OptimizeOptions opt;
  opt.x_max = a.x_max;
  opt.measured_x_only = a.measured_only;
  opt.draft_placement = resolve_draft_placement(reg, a.placement, a.engine, hw.name);
  Table t({"hw", "model", "algorithm", "task", "context", "ar_tokens_per_s", "best_x",
           "best_tokens_per_s", "speedup", "aat_at_best", "t_verify_s", "t_draft_s", "ridge_x", "regime"});
  for (long long L : parse_int_list("--context", a.context, 0)) {
    const auto aat = aat_source(data, {a.algorithm, a.model, a.task, a.source_table}, L);
    const auto r = search::optimize_context(*engine, w, L, aat, opt);
    t.add_row({hw.name, w.target.name, a.algorithm, a.task, integer(L), num(r.ar.p_eff()),
               integer(r.best.x), num(r.best.p_eff()), num(r.speedup(), 3), num(r.best.aat),
               num(r.best.t_verify_s), num(r.best.t_draft_s), num(r.ridge_x, 3),
               roofline::to_string(r.regime)});
  }
  if (!opt.draft_placement.is_same_device())
    t.set_footer(fmt::format("draft on {} over {}: t_draft_s is its passes there plus both link transfers",
                             opt.draft_placement.device(), opt.draft_placement.link()));
  print_table(t, a.format);
  return 0;
}

const RegisterCommand reg{
    "optimize", "Best verification length x per context: P_eff = AAT / (T_v + T_d), speedup over AD",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<OptimizeArgs>();
      sub.add_option("--hw", a->hw, "Hardware config name")->required();
      sub.add_option("--model", a->model, "Target model config name")->required();
      sub.add_option("--algorithm", a->algorithm, "SD algorithm (configs/algorithms)")->required();
      sub.add_option("--context", a->context, "Context lengths: 128,1024 or a range")->required();
      sub.add_option("--task", a->task, "Task whose measured AAT to use")->default_val("govreport");
      sub.add_option("--data", a->data, "AAT CSV (default: configs/acceptance/aat_measurements.csv)");
      sub.add_option("--source-table", a->source_table, "Only AAT rows from this source table");
      sub.add_option("--x-max", a->x_max, "Largest verification length considered")->default_val(128);
      sub.add_flag("--measured-only", a->measured_only, "Evaluate only x with a measured AAT");
      add_draft_placement_options(sub, a->placement);
      add_engine_option(sub, a->engine);
      add_format_option(sub, a->format);
      return [a, &g] { return run_optimize(*a, g); };
    },
    30};

}  // namespace
}  // namespace experiments
