#include "experiments/cli/optimize_table.hpp"

#include "experiments/cli/scenario_runner.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/scenario_runner.hpp"
#include "experiments/cli/validation_status.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "models/config_error.hpp"
#include "search/optimizer.hpp"

namespace experiments {

OptimizeOutput optimize_table(const OptimizeRequest& a, const models::ConfigRegistry& reg) {
  // The command line checks these with its validators; the Python module comes through here.
  if (a.x_max < 1 || a.x_max > kMaxVerificationLength)
    throw models::InputError(fmt::format("--x-max: expected an integer in [1, {}], got {}", kMaxVerificationLength, a.x_max));
  if (a.x_search != "every_x" && a.x_search != "optimum")
    throw models::InputError(fmt::format("--x-search: expected every_x or optimum, got '{}'", a.x_search));
  check_acceptance_options(a.acceptance);
  const auto hw = reg.hardware(a.hw);
  const auto w = make_workload(reg, a.model, a.algorithm);
  const auto engine = models::make_engine(a.engine, hw);
  search::OptimizeOptions opt;
  opt.full_curve = a.x_search == "every_x";
  opt.x_max = a.x_max;
  opt.measured_x_only = a.measured_only;
  opt.draft_placement = resolve_draft_placement(reg, a.placement, a.engine, hw.name);
  OptimizeOutput out;
  Table& t = out.table;
  t = Table({"hw", "model", "algorithm", "task", "context", "batch", "ar_tokens_per_s", "best_x", "best_tokens_per_s",
             "speedup", "aat_at_best", "t_verify_s", "t_draft_s", "ridge_x", "regime", "ridge_x_bound", "aat_source", "at_search_limit",
             "aat_source_tables"});
  t.set_narrow_columns({"context", "batch", "ar_tokens_per_s", "best_x", "best_tokens_per_s", "speedup", "aat_at_best",
                        "ridge_x", "regime", "at_search_limit"});
  // Measurements are keyed by the model config's own name, so a model given as a YAML path
  // finds them too.
  const AatResolver resolver(reg, a.acceptance, {w.target.name, a.algorithm, a.task}, w.algorithm.get(), a.x_max);
  // Every sequence of a batch verifies its own tree against its own context: T_v and T_d grow
  // with B, AAT does not; tokens/s are per sequence (DESIGN.md), the speed-up is over AD at the
  // same batch.
  const auto batches = parse_int_list("--batch", a.batch, 1, kMaxBatch);
  std::vector<std::string> ridge_bounds;  // rows whose ridge is only a lower bound
  for (long long L : parse_int_list("--context", a.context, 0, kMaxContext))
    for (long long b : batches) {
      models::Workload wb = w;
      wb.batch = int(b);
      require_workload_fits(hw, wb, L, a.x_max);
      const auto aat = resolver.at(L);
      const auto r = search::optimize_context(*engine, wb, L, aat.source, opt);
      const std::string edge = search::search_limit_note(w.algorithm.get(), a.x_max, r.best.x, aat.source);
      if (r.ridge_at_search_limit)
        ridge_bounds.push_back(fmt::format("context {} batch {} (x / T_v still rises at x = {}, the largest searched)", L, b, r.curve.back().x));
      t.add_row({hw.name, w.target.name, a.algorithm, a.task, integer(L), integer(b), num(r.ar.p_eff()),
                 integer(r.best.x), num(r.best.p_eff()), num(r.speedup(), 3), num(r.best.aat),
                 num(r.best.t_verify_s), num(r.best.t_draft_s), r.ridge_x ? num(*r.ridge_x, 3) : text(""),
                 text(r.regime ? roofline::to_string(*r.regime) : std::string()), search::ridge_bound_note(r),
                 aat.description, edge,
                 aat.source_tables});
      for (const auto& p : r.curve)
        out.curve.push_back({L, b, p.x, p.aat, p.t_verify_s, p.t_draft_s, p.p_eff()});
    }
  std::string footer;
  if (!opt.draft_placement.is_same_device())
    footer = fmt::format("draft on {} over {}: t_draft_s is its passes there plus both link transfers",
                         opt.draft_placement.device(), opt.draft_placement.link());
  // Whether ridge_x can be trusted, said under the table (its column is not in the narrow view).
  footer += (footer.empty() ? "" : "\n") +
            (ridge_bounds.empty() ? std::string("ridge_x: within the x range searched on every row")
                                  : fmt::format("caveat: ridge_x is only a lower bound at {}", fmt::join(ridge_bounds, "; ")));
  // Acceptance measured for another workload (--aat-from) is said, not silently used.
  if (const std::string borrowed = resolver.borrowed(); !borrowed.empty()) {
    footer += (footer.empty() ? "" : "\n") + std::string("caveat: acceptance borrowed: ") + borrowed;
    t.add_meta("borrowed", std::vector<std::string>{borrowed});
  }
  // optimize is the tree-sd scenario's command: its validation status ends the table.
  const std::string validation = validation_note("tree-sd", reg.dir());
  if (!validation.empty()) footer += (footer.empty() ? "" : "\n") + validation.substr(1);
  t.set_footer(footer);
  if (!validation.empty()) t.add_meta("validation", validation_field(validation.substr(1)));
  return out;
}

}  // namespace experiments
