#include "experiments/cli/workload_setup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "models/config_error.hpp"
#include "search/acceptance/aat_fit.hpp"
#include "sim/system/memory_fit.hpp"

namespace experiments {

models::Workload make_workload(const models::ConfigRegistry& reg, const std::string& model,
                               const std::string& algorithm, int batch) {
  models::Workload w;
  w.target = reg.model(model);
  w.batch = batch;
  if (!algorithm.empty()) w.algorithm = std::make_shared<models::AlgorithmSpec>(reg.algorithm(algorithm));
  return w;
}

void require_workload_fits(const models::HardwareSpec& hw, const models::Workload& w, long long context,
                           int max_x) {
  sim::MemoryQuery q;
  q.batch = w.batch;
  q.step_tokens = max_x;
  q.kv_tokens = context + max_x;
  sim::require_workload_fit(hw, w.target, w.algorithm.get(), q);
}

search::AatSource interpolated_aat_source(const search::AatSource& lo, const search::AatSource& hi, long long lo_context,
                                          long long hi_context, long long context, const std::string& what) {
  // AAT at every x measured at both contexts, linear in ln(context) between them (AAT falls with
  // the context as the text moves away from the prompt, roughly by the log); the trees' shapes
  // are the lower context's.
  const double t = (std::log(double(context)) - std::log(double(lo_context))) /
                   (std::log(double(hi_context)) - std::log(double(lo_context)));
  search::AatSource s;
  std::vector<search::AatPoint> pts{{1.0, 1.0}};
  for (const auto& [x, a] : lo.measured) {
    const auto other = hi.measured.find(x);
    if (other == hi.measured.end()) continue;
    const double v = a + t * (other->second - a);
    s.measured[x] = v;
    if (x > 1) pts.push_back({double(x), v});
    const auto widths = lo.measured_widths.find(x);
    if (widths != lo.measured_widths.end()) s.measured_widths[x] = widths->second;
  }
  if (pts.size() < 3)
    throw models::InputError(fmt::format("{}: contexts {} and {} share too few measured x to interpolate", what,
                                         lo_context, hi_context));
  s.fit = search::fit_aat(pts, what);
  s.note = fmt::format("interpolated between contexts {} and {} (linear in ln context)", lo_context, hi_context);
  return s;
}

search::AatSource aat_source(const search::AcceptanceData& data, const AatSelection& sel,
                             long long context) {
  search::AatQuery q;
  q.algorithm = sel.algorithm;
  q.target_model = sel.model;
  q.task = sel.task;
  q.context = context;
  if (!sel.source_table.empty()) q.source_table = sel.source_table;
  const auto rows = data.select(q);
  if (rows.empty()) {
    q.context.reset();
    const auto have = data.contexts(q);
    // Between two measured contexts: interpolated (below the smallest or above the largest the
    // data say nothing, and that stays an error).
    const auto above = std::upper_bound(have.begin(), have.end(), context);
    if (above != have.begin() && above != have.end()) {
      const long long lo = *std::prev(above), hi = *above;
      return interpolated_aat_source(aat_source(data, sel, lo), aat_source(data, sel, hi), lo, hi, context,
                                     fmt::format("{}: {} {} {} context {}", data.path(), sel.algorithm, sel.model,
                                                 sel.task, context));
    }
    throw models::InputError(fmt::format(
        "{}: no AAT measurements for algorithm {}, model {}, task {}, context {} (contexts with data: {})",
        data.path(), sel.algorithm, sel.model, sel.task, context,
        have.empty() ? std::string("none") : fmt::format("{}", fmt::join(have, ","))));
  }
  return search::AatSource::from_measurements(
      rows, fmt::format("{}: {} {} {} context {}", data.path(), sel.algorithm, sel.model, sel.task, context));
}

}  // namespace experiments
