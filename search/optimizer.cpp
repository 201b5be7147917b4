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

namespace {

// T_d at verification length x: the draft's passes for the tree used at x (a measured tree's own
// per-level widths where the acceptance table has them), on the target's device or elsewhere.
double draft_time(const models::LatencyEngine& engine, const models::Workload& w, long long context,
                  const AatSource& aat, int x, const std::vector<int>* widths, const DraftPlacement* placement) {
  if (x <= 1 || !w.algorithm) return 0.0;
  if (!widths && w.algorithm->tree_kind == models::TreeKind::width_per_depth) {
    auto it = aat.measured_widths.find(x);
    if (it != aat.measured_widths.end()) widths = &it->second;
  }
  if (placement && !placement->is_same_device())
    return widths ? placement->t_draft_passes(engine, w, *widths, x, context)
                  : placement->t_draft(engine, w, x, context);
  return widths ? models::t_draft_passes(engine, w, *widths, context) : models::t_draft(engine, w, x, context);
}

// The curve at the x that can still be the best, for engines whose T_v never falls as x grows.
// Every x gets its AAT and T_d (the draft is small and its passes repeat across x); T_v is
// evaluated first at the ends and the powers of two, then wherever an upper bound on P_eff still
// reaches the best point found. For an x not evaluated, the nearest evaluated x' below it bounds
// T_v(x) >= T_v(x'), so P_eff(x) <= AAT(x) / (T_v(x') + T_d(x)) (AAT and T_d are exact, so a
// measured AAT that dips or a tree whose draft is cheaper changes nothing). The search stops
// when no bound reaches the best P_eff, so the best point, and the first x that attains it, are
// those of the full curve. (x / T_v, whose maximum sets the ridge, is flat to 0.1 % past the
// ridge on the FPGA boards, so no bound of this kind prunes it: the ridge needs every x.)
// Returns the evaluated points, ascending.
std::vector<roofline::PerfPoint> bounded_curve(const models::LatencyEngine& engine, const models::Workload& w,
                                               long long context, const AatSource& aat,
                                               const std::vector<int>& xs, const DraftPlacement* placement) {
  const std::size_t n = xs.size();
  std::vector<roofline::PerfPoint> points(n);
  std::vector<char> evaluated(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    points[i].x = xs[i];
    points[i].aat = aat.at(xs[i]);
    points[i].t_draft_s = draft_time(engine, w, context, aat, xs[i], nullptr, placement);
  }
  auto evaluate = [&](std::size_t i) {
    points[i].t_verify_s = models::t_verify(engine, w, xs[i], context);
    evaluated[i] = 1;
  };
  for (std::size_t i = 0; i < n; ++i)
    if (i == 0 || i + 1 == n || (xs[i] & (xs[i] - 1)) == 0) evaluate(i);
  for (;;) {
    double best = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (evaluated[i]) best = std::max(best, points[i].p_eff());
    // Evaluate the x whose bound reaches highest (a tie with the best counts: a smaller x as good
    // as the best is the one the full curve reports).
    std::size_t pick = n;
    double pick_bound = 0, t_verify_below = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (evaluated[i]) {
        t_verify_below = points[i].t_verify_s;
        continue;
      }
      const double bound = points[i].aat / (t_verify_below + points[i].t_draft_s);
      if (bound >= best && bound > pick_bound) pick = i, pick_bound = bound;
    }
    if (pick == n) break;
    evaluate(pick);
  }
  std::vector<roofline::PerfPoint> curve;
  for (std::size_t i = 0; i < n; ++i)
    if (evaluated[i]) curve.push_back(points[i]);
  return curve;
}

}  // namespace

roofline::PerfPoint evaluate_x(const models::LatencyEngine& engine, const models::Workload& w,
                               long long context, const AatSource& aat, int x,
                               const std::vector<int>* widths, const DraftPlacement* placement) {
  roofline::PerfPoint p;
  p.x = x;
  p.aat = aat.at(x);
  p.t_verify_s = models::t_verify(engine, w, x, context);
  p.t_draft_s = draft_time(engine, w, context, aat, x, widths, placement);
  return p;
}

std::string measured_edge_note(const AatSource& aat, int best_x) {
  if (aat.measured.size() < 2 || best_x < aat.measured.rbegin()->first) return "";
  return fmt::format("x = {}: the largest measured x (beyond it AAT is extrapolated)", aat.measured.rbegin()->first);
}

std::string search_limit_note(const models::AlgorithmSpec* algorithm, int x_max, int best_x, const AatSource& aat) {
  const bool tree_bound = algorithm && algorithm->max_x > 0 && algorithm->max_x < x_max;
  const int limit = tree_bound ? algorithm->max_x : x_max;
  if (best_x >= limit && limit > 1)
    return tree_bound ? fmt::format("x = {}: the algorithm's largest tree", limit)
                      : fmt::format("x = {}: raise --x-max", limit);
  return measured_edge_note(aat, best_x);
}

OptimizeResult optimize_context(const models::LatencyEngine& engine, const models::Workload& w,
                                long long context, const AatSource& aat,
                                const OptimizeOptions& o) {
  if (o.x_max < 1) throw models::InputError(fmt::format("--x-max must be >= 1, got {}", o.x_max));
  int x_max = o.x_max;
  if (w.algorithm && w.algorithm->max_x > 0) x_max = std::min(x_max, w.algorithm->max_x);
  OptimizeResult r;
  r.context = context;
  std::vector<int> xs;
  for (int x = 1; x <= x_max; ++x)
    if (!o.measured_x_only || x == 1 || aat.measured.count(x)) xs.push_back(x);
  if (!o.full_curve && engine.verify_time_non_decreasing_in_x())
    r.curve = bounded_curve(engine, w, context, aat, xs, &o.draft_placement);
  else
    for (int x : xs) r.curve.push_back(evaluate_x(engine, w, context, aat, x, nullptr, &o.draft_placement));
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
  if (r.curve.size() == xs.size()) {  // the ridge is a maximum over every x
    r.ridge_x = roofline::ridge_point(r.curve);
    r.regime = roofline::classify(*r.ridge_x, naive_x);
    r.ridge_at_search_limit = ridge_rises_past(r.curve);
  }
  return r;
}

bool ridge_rises_past(const std::vector<roofline::PerfPoint>& curve) {
  if (curve.size() < 2) return false;
  // x / T_v at the largest x against its best over the first half of the range: on a compute
  // roof (past the ridge) the two agree to within wave-quantisation ripple and the FPGA's
  // 0.1 % drift, so 1 % above it means the curve is still climbing the memory line.
  constexpr double kStillRising = 1.01;
  const auto& last = curve.back();
  double first_half_best = 0;
  for (const auto& p : curve)
    if (2 * p.x <= last.x) first_half_best = std::max(first_half_best, p.p());
  double best = 0;
  for (const auto& p : curve) best = std::max(best, p.p());
  return first_half_best > 0 && last.p() >= best && last.p() > kStillRising * first_half_best;
}

std::string ridge_bound_note(const OptimizeResult& r) {
  return r.ridge_at_search_limit
             ? fmt::format("lower bound: x / T_v still rises at x = {}, the largest x searched", r.curve.back().x)
             : std::string();
}

}  // namespace search
