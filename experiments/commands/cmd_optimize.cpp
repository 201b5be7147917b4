// specdse optimize: best verification length per context, speedup over AD and the regime.
#include <fmt/format.h>

#include "experiments/cli/acceptance_source.hpp"
#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/draft_placement_options.hpp"
#include "experiments/cli/optimize_table.hpp"

namespace experiments {
namespace {

struct OptimizeArgs : OptimizeRequest {
  std::string format;
};

int run_optimize(const OptimizeArgs& a, const GlobalOptions& g) {
  print_table(optimize_table(a, registry(g)).table, a.format);
  return 0;
}

const RegisterCommand optimize_registration{
    "optimize", "Best verification length x per context: P_eff = AAT / (T_v + T_d), speedup over AD",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<OptimizeArgs>();
      sub.add_option("--hw", a->hw, "Hardware config name")->required();
      sub.add_option("--model", a->model, "Target model: config name (configs/models), NAME@FORMAT, or a YAML path")->required();
      // --algorithm names what drafts: an SD algorithm (configs/algorithms) or a draft model
      // (a standalone chain draft), as --draft does in latency / window / system; --draft is kept
      // here as a hidden alias so either spelling works.
      auto* algorithm = sub.add_option("--algorithm", a->algorithm,
                                       "SD algorithm (configs/algorithms) or a draft model name (chain draft)");
      auto* draft_alias = sub.add_option("--draft", a->algorithm)->group("");
      // Required through either spelling, so CLI11's own ->required() cannot say it; the help
      // line says it as CLI11 does for the others.
      algorithm->type_name("TEXT REQUIRED");
      sub.callback([algorithm, draft_alias] {
        if (algorithm->count() + draft_alias->count() == 0) throw CLI::RequiredError("--algorithm");
        if (algorithm->count() > 0 && draft_alias->count() > 0)
          throw CLI::ExcludesError("--algorithm", "--draft");
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
