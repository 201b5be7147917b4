// Paper 000 §III-B case analysis as a sweep: configs/sweeps/compute_bandwidth_ratio.yaml varies
// the V80's off-chip bandwidth at a fixed PE array, showing the three regimes (SD never helps,
// larger x always better, interior optimum) against the compute-to-bandwidth ratio.
#include <fmt/format.h>

#include "experiments/reproductions/manifest.hpp"
#include "experiments/reproductions/repro_support.hpp"
#include "experiments/sweep/sweep_runner.hpp"

namespace experiments::repro_regimes {
namespace {

ReproductionResult regimes(const ReproduceContext& ctx) {
  const auto& reg = *ctx.registry;
  const std::string spec_path = reg.dir() + "/sweeps/compute_bandwidth_ratio.yaml";
  const auto spec = load_sweep_spec(spec_path);
  SweepRunOptions o;
  o.engine = ctx.engine;
  Table rows({});
  const auto stats = run_sweep(spec, reg, o, &rows);

  ReproductionResult res;
  res.title = fmt::format("Paper 000 §III-B regimes vs compute-to-bandwidth ratio ({} engine)", ctx.engine);
  res.inputs = {spec_path, reg.path("hardware", "v80"), reg.dir() + "/acceptance/aat_measurements.csv"};
  res.table = std::move(rows);
  res.notes = fmt::format(
      "Sweep of {} points. sd_case: sd_never_helps (best x = 1), optimum_at_saturation (best x at or past "
      "the AAT saturation point, paper 000's naive set: larger trees pay off until acceptance saturates), "
      "interior_optimum (the compute roof stops it before). Same rows as `specdse sweep --spec {}`.",
      stats.total, portable_path(spec_path, reg.dir()));
  res.plots.push_back(plot_script("sweep_regimes", {ctx.out_dir + "/regimes.csv", ctx.out_dir + "/regimes.png"}));
  return res;
}

const RegisterReproduction regimes_registration{"regimes", "Paper 000 §III-B: the three SD regimes vs compute-to-bandwidth ratio",
                               regimes, 90, /*long_running=*/true};

}  // namespace
}  // namespace experiments::repro_regimes
