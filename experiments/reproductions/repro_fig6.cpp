// Paper 000 Fig. 6: AAT vs x for the three tree-construction methods (prior-score search,
// width-first, depth-first; LongSpec, Llama-3.1-8B-Instruct, context 1024), with fits.
#include <fmt/format.h>

#include <map>

#include "experiments/cli/cli_common.hpp"
#include "experiments/reproductions/repro_support.hpp"

namespace experiments::repro_fig6 {
namespace {

ReproductionResult fig6(const ReproduceContext& ctx) {
  const auto& reg = *ctx.registry;
  const std::string data_path = reg.dir() + "/acceptance/tree_methods.csv";
  const std::string ref_path = reg.dir() + "/reference/paper000_fig6.csv";
  const auto pts = load_tree_methods(data_path);
  const auto ref = load_reference(ref_path);
  const std::string reference_method = "prior-score";

  std::map<std::string, std::map<int, double>> by_method;
  for (const auto& p : pts) by_method[p.method][p.x()] = p.aat;

  ReproductionResult res;
  res.title = "Paper 000 Fig. 6: AAT vs x per tree-construction method, LongSpec, Llama-3.1-8B-Instruct, context 1024";
  res.inputs = {data_path, ref_path + " (paper values, display only)"};
  res.notes =
      "prior_score_aat_advantage: mean over the x measured for both of AAT(prior-score) - "
      "AAT(method). Fits: Ceres, A + B ln(x - C) with AAT(1) = 1.";
  Table t({"method", "points", "mean_aat", "prior_score_aat_advantage", "paper_prior_score_aat_advantage",
           "fit_a", "fit_b", "fit_c", "fit_r2"});
  Table curves({"method", "x", "tree_shape", "aat", "aat_fit"});
  for (const auto& method : tree_method_names(pts)) {
    const auto src = tree_method_source(pts, method, data_path + ": " + method);
    const auto& mine = by_method[method];
    double sum = 0, adv = 0;
    int common = 0;
    for (const auto& [x, a] : mine) {
      sum += a;
      auto it = by_method[reference_method].find(x);
      if (it != by_method[reference_method].end()) { adv += it->second - a; ++common; }
    }
    t.add_row({method, integer(std::int64_t(mine.size())), num(sum / double(mine.size())),
               num(common ? adv / common : 0.0, 3),
               optional_num(reference_value(ref, {{"method", method}}, "prior_score_aat_advantage"), 3),
               num(src.fit.a), num(src.fit.b), num(src.fit.c), num(src.fit.r2)});
    for (const auto& p : pts)
      if (p.method == method)
        curves.add_row({method, integer(p.x()), p.tree_shape, num(p.aat), num(src.fit(p.x()))});
  }
  res.table = std::move(t);
  res.extra_csvs.emplace_back("fig6_curves.csv", std::move(curves));
  return res;
}

const RegisterReproduction fig6_registration{"fig6", "Paper 000 Fig. 6 (AAT vs x for three tree-construction methods)", fig6, 80};

}  // namespace
}  // namespace experiments::repro_fig6
