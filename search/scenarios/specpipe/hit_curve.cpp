#include "search/scenarios/specpipe/hit_curve.hpp"
#include "models/input_file.hpp"

#include <ceres/ceres.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>

#include "models/config_error.hpp"
#include "sim/io/csv.hpp"

namespace search::specpipe {

namespace {

// Residual H(k) - hit with the shared slope b = exp(beta) (kept positive: H increases with k).
struct HitResidual {
  HitResidual(double k, double hit) : ln_k_(std::log(k)), hit_(hit) {}
  template <typename T>
  bool operator()(const T* const a, const T* const beta, T* r) const {
    const T z = a[0] + ceres::exp(beta[0]) * T(ln_k_);
    // The logistic written so that exp never overflows (its derivative stays finite).
    const T h = z >= T(0) ? T(1) / (T(1) + ceres::exp(-z)) : ceres::exp(z) / (T(1) + ceres::exp(z));
    r[0] = h - T(hit_);
    return true;
  }
  double ln_k_, hit_;
};

}  // namespace

double logit(double p) { return std::log(p / (1 - p)); }

std::vector<HitPoint> load_hit_points(const std::string& path) {
  std::ifstream in = models::open_input_file(path, "hit points");
  if (!in) throw models::InputError(fmt::format("{}: cannot open hit-point file", path));
  std::vector<std::string> header;
  std::vector<HitPoint> pts;
  sim::CsvReadOptions options;
  options.trim = true;  // hand-written files align their columns
  sim::CsvReader reader(in, path, options);
  for (sim::CsvRecord record; reader.next(record);) {
    const int lineno = record.line;
    const auto& cells = record.cells;
    if (header.empty()) {
      header = cells;
      for (const char* need : {"curve", "k", "hit"})
        if (std::find(header.begin(), header.end(), need) == header.end())
          throw models::InputError(fmt::format("{}: header: missing column '{}' (expected curve,draft,target,k,hit)", path, need));
      continue;
    }
    if (cells.size() != header.size())
      throw models::InputError(fmt::format("{}:{}: {} cells, the header has {}", path, lineno, cells.size(), header.size()));
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size(); ++i) row[header[i]] = cells[i];
    HitPoint p;
    p.curve = row["curve"];
    p.draft = row.count("draft") ? row["draft"] : p.curve;
    p.target = row.count("target") ? row["target"] : "";
    if (p.curve.empty()) throw models::InputError(fmt::format("{}:{}: curve: empty", path, lineno));
    try {
      std::size_t used = 0;
      const double k = std::stod(row["k"], &used);
      if (used != row["k"].size() || k != std::floor(k)) throw std::invalid_argument("k");
      // Checked before the conversion: int(3e20) or int(inf) is undefined (found by fuzzing).
      if (!(k >= 1 && k <= std::numeric_limits<int>::max()))
        throw models::InputError(fmt::format("{}:{}: k: {} (must be an integer in 1..{})", path, lineno, row["k"],
                                             std::numeric_limits<int>::max()));
      p.k = int(k);
      p.hit = std::stod(row["hit"], &used);
      if (used != row["hit"].size()) throw std::invalid_argument("hit");
    } catch (const models::InputError&) {
      throw;
    } catch (const std::exception&) {
      throw models::InputError(fmt::format("{}:{}: k must be an integer and hit a number (got k='{}', hit='{}')", path,
                                           lineno, row["k"], row["hit"]));
    }
    if (p.k < 1) throw models::InputError(fmt::format("{}:{}: k: {} (must be >= 1)", path, lineno, p.k));
    if (!(p.hit >= 0 && p.hit <= 1))
      throw models::InputError(fmt::format("{}:{}: hit: {} is outside [0, 1]", path, lineno, p.hit));
    pts.push_back(p);
  }
  if (pts.empty()) throw models::InputError(fmt::format("{}: no hit points", path));
  return pts;
}

double HitCurve::operator()(double k) const {
  if (k <= 0) return 0.0;
  return 1.0 / (1.0 + std::exp(-(a + b * std::log(k))));
}

double HitCurve::rank_probability(int j) const {
  if (j < 1) return 0.0;
  return (*this)(j) - (*this)(j - 1);
}

long long HitCurve::rank_for_quantile(double u, long long cap) const {
  if (u <= 0) return 1;
  if (u >= 1) return cap + 1;
  // H(r) = u  <=>  r = exp((logit(u) - a) / b); the rank is the smallest integer j with H(j) >= u.
  const double r = std::exp((logit(u) - a) / b);
  if (!(r < double(cap))) return cap + 1;
  long long j = std::max(1LL, (long long)std::ceil(r));
  // Guard the rounding at integer boundaries.
  while (j > 1 && (*this)(double(j - 1)) >= u) --j;
  while ((*this)(double(j)) < u && j <= cap) ++j;
  return j;
}

HitCurve HitCurve::through(std::string name, double k1, double h1, double k2, double h2) {
  if (!(h1 > 0 && h1 < 1 && h2 > 0 && h2 < 1 && k1 >= 1 && k2 >= 1 && k1 != k2))
    throw models::InputError(fmt::format("hit curve '{}': a curve through (k={}, hit={}) and (k={}, hit={}) needs "
                                         "hits in (0, 1) and two different k >= 1", name, k1, h1, k2, h2));
  // logit H(k) = a + b ln k at both points.
  const double b = (logit(h2) - logit(h1)) / (std::log(k2) - std::log(k1));
  return {std::move(name), logit(h1) - b * std::log(k1), b};
}

const HitCurve& HitFit::curve(const std::string& name) const {
  for (const auto& c : curves)
    if (c.name == name) return c;
  std::string names;
  for (const auto& c : curves) names += (names.empty() ? "" : ", ") + c.name;
  throw models::InputError(fmt::format("hit curve: no curve for draft '{}' (have: {})", name, names));
}

HitFit fit_hit_curves(const std::vector<HitPoint>& points, const std::string& what) {
  if (points.empty()) throw models::InputError(fmt::format("{}: no points", what));
  std::vector<std::string> names;
  for (const auto& p : points) {
    if (p.k < 1 || !(p.hit >= 0 && p.hit <= 1))
      throw models::InputError(fmt::format("{}: point (k={}, hit={}) needs k >= 1 and hit in [0, 1]", what, p.k, p.hit));
    if (std::find(names.begin(), names.end(), p.curve) == names.end()) names.push_back(p.curve);
  }
  // A curve's location is only identified by a point strictly inside (0, 1).
  for (const auto& n : names) {
    const bool placed = std::any_of(points.begin(), points.end(),
                                    [&](const HitPoint& p) { return p.curve == n && p.hit > 0 && p.hit < 1; });
    if (!placed) throw models::InputError(fmt::format("{}: curve '{}' has no point with 0 < hit < 1", what, n));
  }
  auto index_of = [&](const std::string& n) { return std::size_t(std::find(names.begin(), names.end(), n) - names.begin()); };

  HitFit best;
  double best_cost = INFINITY;
  // Multi-start over the slope: logistic fits are not convex in it.
  for (double b0 : {0.5, 1.0, 1.5, 2.5, 4.0}) {
    double beta[1] = {std::log(b0)};
    std::vector<double> a(names.size(), 0.0);
    // Seed each location from its points' logits at this slope.
    for (std::size_t c = 0; c < names.size(); ++c) {
      double s = 0;
      int n = 0;
      for (const auto& p : points)
        if (p.curve == names[c] && p.hit > 0 && p.hit < 1) s += logit(p.hit) - b0 * std::log(p.k), ++n;
      a[c] = s / n;
    }
    ceres::Problem problem;
    for (const auto& p : points)
      problem.AddResidualBlock(new ceres::AutoDiffCostFunction<HitResidual, 1, 1, 1>(new HitResidual(p.k, p.hit)),
                               nullptr, &a[index_of(p.curve)], beta);
    for (auto& ac : a) {
      if (problem.HasParameterBlock(&ac)) {
        // Locations beyond +-30 are hit rates within 1e-13 of 0 or 1 at k = 1: nothing to fit.
        problem.SetParameterLowerBound(&ac, 0, -30.0);
        problem.SetParameterUpperBound(&ac, 0, 30.0);
      }
    }
    problem.SetParameterLowerBound(beta, 0, std::log(0.05));
    problem.SetParameterUpperBound(beta, 0, std::log(20.0));
    ceres::Solver::Options opt;
    opt.max_num_iterations = 300;
    opt.function_tolerance = 1e-14;
    opt.parameter_tolerance = 1e-14;
    opt.gradient_tolerance = 1e-14;
    opt.logging_type = ceres::SILENT;
    ceres::Solver::Summary summary;
    ceres::Solve(opt, &problem, &summary);
    if (!std::isfinite(summary.final_cost) || !std::isfinite(beta[0])) continue;
    if (summary.final_cost < best_cost - 1e-15) {
      best_cost = summary.final_cost;
      best.slope = std::exp(beta[0]);
      best.curves.clear();
      for (std::size_t c = 0; c < names.size(); ++c) best.curves.push_back({names[c], a[c], best.slope});
    }
  }
  if (!std::isfinite(best_cost)) throw models::InputError(fmt::format("{}: the fit did not converge", what));
  double mean = 0;
  for (const auto& p : points) mean += p.hit;
  mean /= double(points.size());
  double ss_res = 0, ss_tot = 0;
  for (const auto& p : points) {
    const double r = best.curves[index_of(p.curve)](p.k) - p.hit;
    ss_res += r * r;
    ss_tot += (p.hit - mean) * (p.hit - mean);
  }
  best.n = int(points.size());
  best.rmse = std::sqrt(ss_res / double(points.size()));
  best.r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
  return best;
}

}  // namespace search::specpipe
