#include "search/optimizer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "models/config_error.hpp"

namespace search {

double AatSource::at(int x) const {
  if (x <= 1) return 1.0;
  auto it = measured.find(x);
  return it != measured.end() ? it->second : fit(x);
}

std::vector<int> parse_tree_shape(const std::string& shape) {
  std::vector<int> widths;
  std::istringstream in(shape);
  int w = 0;
  while (in >> w)
    if (w > 0) widths.push_back(w);
  return widths;
}

AatSource AatSource::from_measurements(const std::vector<AatMeasurement>& rows,
                                       const std::string& what) {
  AatSource s;
  std::vector<AatPoint> pts{{1.0, 1.0}};
  for (const auto& r : rows) {
    pts.push_back({double(r.x()), r.aat});
    s.measured[r.x()] = r.aat;
    const auto widths = parse_tree_shape(r.tree_shape);
    if (!widths.empty()) s.measured_widths[r.x()] = widths;
  }
  s.fit = fit_aat(pts, what);
  return s;
}

roofline::PerfPoint evaluate_x(const models::LatencyEngine& engine, const models::Workload& w,
                               long long context, const AatSource& aat, int x,
                               const std::vector<int>* widths, const DraftPlacement* placement) {
  roofline::PerfPoint p;
  p.x = x;
  p.aat = aat.at(x);
  p.t_verify_s = models::t_verify(engine, w, x, context);
  if (x > 1 && w.algorithm) {
    if (!widths && w.algorithm->tree_kind == models::TreeKind::width_per_depth) {
      auto it = aat.measured_widths.find(x);
      if (it != aat.measured_widths.end()) widths = &it->second;
    }
    if (placement && !placement->is_same_device())
      p.t_draft_s = widths ? placement->t_draft_passes(engine, w, *widths, x, context)
                           : placement->t_draft(engine, w, x, context);
    else
      p.t_draft_s = widths ? models::t_draft_passes(engine, w, *widths, context)
                           : models::t_draft(engine, w, x, context);
  }
  return p;
}

OptimizeResult optimize_context(const models::LatencyEngine& engine, const models::Workload& w,
                                long long context, const AatSource& aat,
                                const OptimizeOptions& o) {
  if (o.x_max < 1) throw models::InputError(fmt::format("--x-max must be >= 1, got {}", o.x_max));
  int x_max = o.x_max;
  if (w.algorithm && w.algorithm->max_x > 0) x_max = std::min(x_max, w.algorithm->max_x);
  OptimizeResult r;
  r.context = context;
  for (int x = 1; x <= x_max; ++x) {
    if (o.measured_x_only && x > 1 && !aat.measured.count(x)) continue;
    r.curve.push_back(evaluate_x(engine, w, context, aat, x, nullptr, &o.draft_placement));
  }
  r.ar = r.curve.front();
  r.best = *std::max_element(r.curve.begin(), r.curve.end(),
                             [](const auto& a, const auto& b) { return a.p_eff() < b.p_eff(); });
  int naive_x = x_max;
  for (int x = 2; x <= x_max; ++x)
    if (aat.fit.slope(x) < o.naive_slope) { naive_x = x; break; }
  r.naive = evaluate_x(engine, w, context, aat, naive_x, nullptr, &o.draft_placement);
  if (o.original_x)
    r.original = evaluate_x(engine, w, context, aat, *o.original_x,
                            o.original_widths ? &*o.original_widths : nullptr, &o.draft_placement);
  r.ridge_x = roofline::ridge_point(r.curve);
  r.regime = roofline::classify(r.ridge_x, naive_x);
  return r;
}

}  // namespace search
