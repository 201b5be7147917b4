// Paper 000 Fig. 5: the logarithmic AAT model A + B ln(x - C) per context length (LongSpec,
// Llama-3.1-8B-Instruct, GovReport): measured points, the curve fitted to all of them, the curve
// fitted to a few points only (as the paper proposes: x = 2, 3, 5, 11, 21, 41) and the R² of each
// on every measured point.
#include <fmt/format.h>

#include <set>

#include "experiments/cli/cli_common.hpp"
#include "experiments/reproductions/repro_support.hpp"
#include "experiments/cli/workload_setup.hpp"

namespace experiments::repro_fig5 {
namespace {

ReproductionResult fig5(const ReproduceContext& ctx) {
  const auto& reg = *ctx.registry;
  const std::string data_path = reg.dir() + "/acceptance/aat_measurements.csv";
  const std::string ref_path = reg.dir() + "/reference/paper000_fig5.csv";
  const auto data = search::AcceptanceData::load(data_path);
  const auto ref = load_reference(ref_path);
  const auto paper_r2 = reference_value(ref, {{"quantity", "r2"}}, "value");
  const std::set<int> few_x = {2, 3, 5, 11, 21, 41};  // the "few test points" of the offline fit

  search::AatQuery q;
  q.algorithm = "longspec-tree";
  q.target_model = "llama-3.1-8b-instruct";
  q.task = "govreport";
  q.source_table = "t3-4";
  ReproductionResult res;
  res.title = "Paper 000 Fig. 5: AAT fits per context, LongSpec, Llama-3.1-8B-Instruct, GovReport";
  res.inputs = {data_path + " (source_table t3-4)", ref_path + " (paper values, display only)"};
  Table t({"context", "points", "a", "b", "c", "r2", "rmse", "few_points", "few_a", "few_b", "few_c",
           "few_r2_on_all_points", "paper_r2"});
  Table points({"context", "x", "aat_measured", "aat_fit", "aat_fit_few_points", "used_in_few_point_fit"});
  for (long long L : data.contexts(q)) {
    q.context = L;
    const auto rows = data.select(q);
    std::vector<search::AatPoint> all{{1.0, 1.0}}, few{{1.0, 1.0}};
    for (const auto& r : rows) {
      all.push_back({double(r.x()), r.aat});
      if (few_x.count(r.x())) few.push_back({double(r.x()), r.aat});
    }
    const std::string what = fmt::format("{}: t3-4 context {}", data_path, L);
    const auto fit = search::fit_aat(all, what);
    const auto fit_few = search::fit_aat(few, what + " (few points)");
    t.add_row({integer(L), integer(std::int64_t(all.size())), num(fit.a), num(fit.b), num(fit.c),
               num(fit.r2), num(fit.rmse), integer(std::int64_t(few.size())), num(fit_few.a), num(fit_few.b),
               num(fit_few.c), num(r_squared(fit_few, all)), optional_num(paper_r2)});
    for (const auto& p : all)
      points.add_row({integer(L), integer(int(p.x)), num(p.aat), num(fit(p.x)), num(fit_few(p.x)),
                      integer(p.x == 1 || few_x.count(int(p.x)) ? 1 : 0)});
  }
  res.table = std::move(t);
  res.extra_csvs.emplace_back("fig5_points.csv", std::move(points));
  res.notes =
      "Fits by Ceres (models eq 3) including the exact AD point AAT(1) = 1. few_*: the curve fitted "
      "to x in {1, 2, 3, 5, 11, 21, 41} only, scored on every measured point. Points and curves in "
      "fig5_points.csv.";
  return res;
}

const RegisterReproduction fig5_registration{"fig5", "Paper 000 Fig. 5 (AAT fits per context, R²)", fig5, 70};

}  // namespace
}  // namespace experiments::repro_fig5
