#pragma once
// Shared by the paper-000 reproductions (repro_*.cpp): plot requests, reference-value look-ups,
// AAT sources built from selections the generic helpers do not cover (source-table prefixes,
// the tree-method table, geometric means across tasks).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "experiments/reproductions/paper_reference.hpp"
#include "experiments/reproductions/reproduction.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/optimizer.hpp"

namespace experiments {

// The plot script experiments/plots/<name>.py of the source tree, run on the output folder.
PlotRequest plot_script(const std::string& name, std::vector<std::string> args = {});

// The plots of reproduction `name`'s result: its own (res.plots), otherwise its conventional
// script experiments/plots/<name with '-' as '_'>.py with no arguments, where that script exists.
std::vector<PlotRequest> reproduction_plots(const std::string& name, const ReproductionResult& res);

using ReferenceRows = std::vector<std::map<std::string, std::string>>;
// The value of `column` in the first reference row whose cells equal every (key, value) in
// `match`; nullopt when no row matches or the cell is empty. Display only.
std::optional<double> reference_value(const ReferenceRows& rows,
                                      const std::vector<std::pair<std::string, std::string>>& match,
                                      const std::string& column);
// A table cell for an optional reference value (empty when absent).
Cell optional_num(const std::optional<double>& v, int digits = 4);
// An integer cell for an optional reference value (x columns).
Cell optional_int(const std::optional<double>& v);
// 100 * (ours - paper) / paper, or an empty cell.
Cell error_pct(double ours, const std::optional<double>& paper);

// Measured rows for (algorithm, model, task, context) whose source table starts with `prefix`
// (e.g. "t8 sheet1" also matches "t8 sheet1 (run with a 14000-token prefill)").
std::vector<search::AatMeasurement> select_by_source_prefix(const search::AcceptanceData& data,
                                                            const std::string& algorithm,
                                                            const std::string& model,
                                                            const std::string& task,
                                                            std::optional<long long> context,
                                                            const std::string& prefix);

// Paper 000's tree-construction comparison (configs/acceptance/tree_methods.csv).
struct TreeMethodPoint {
  std::string method;
  long long context = 0;
  int draft_nodes = 0;
  std::string tree_shape;  // nodes per level, e.g. "4 4 3 1": the draft's pass widths
  double aat = 0;
  int x() const { return draft_nodes + 1; }
};
std::vector<TreeMethodPoint> load_tree_methods(const std::string& path);
// Methods in file order.
std::vector<std::string> tree_method_names(const std::vector<TreeMethodPoint>& points);
// The AAT source of one method: measured AAT and tree shape per x plus the Ceres fit.
search::AatSource tree_method_source(const std::vector<TreeMethodPoint>& points,
                                     const std::string& method, const std::string& what);

// Geometric mean of several AAT curves (paper 000 §IV-C "unified" curve): at every x measured
// for all sources the geometric mean of the measurements, refitted; tree shapes kept where all
// sources used the same shape at that x.
search::AatSource geometric_mean_source(const std::vector<search::AatSource>& sources,
                                        const std::string& what);

// Coefficient of determination of `fit` on the points (1 - SS_res / SS_tot).
double r_squared(const search::AatFit& fit, const std::vector<search::AatPoint>& points);

// Where y (sampled at x, x increasing) first changes sign, by linear interpolation between the
// two samples around it; NaN when it never does. The sensitivity tables' break-even points.
double first_sign_change(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace experiments
