#include "search/acceptance/process_fit.hpp"

#include <ceres/ceres.h>

#include "search/acceptance/ceres_logging.hpp"
#include <fmt/format.h>

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>

#include "models/closest_name.hpp"
#include "models/config_error.hpp"

namespace search {
namespace {

using models::InputError;

// Each parameter's range as an open interval and its map to / from the real line. alpha_hard is
// fitted as the fraction alpha_hard / alpha_easy, so the order of the states always holds.
constexpr double kEdge = 1e-9;

double logistic(double u) { return u >= 0 ? 1 / (1 + std::exp(-u)) : std::exp(u) / (1 + std::exp(u)); }
double logit(double p) {
  p = std::clamp(p, kEdge, 1 - kEdge);
  return std::log(p / (1 - p));
}

struct Bounds {
  double lo, hi;
};
Bounds bounds_of(const std::string& name) {
  if (name == "depth_decay") return {0.5, 1.5};  // beyond these a draft gains or loses its whole skill in a few tokens
  if (name == "persistence") return {0, 0.999};
  if (name == "lower_rank_share") return {0.001, 1};
  // A free tail shape is log-logistic: (0, 1] (rank_tail.hpp); 0.05 keeps the tail from
  // degenerating into "every miss is outside the list" at the edge of the search.
  if (name == "rank_tail_shape") return {0.05, 1};
  return {0, 1};
}

double to_unconstrained(const AcceptanceProcessParams& p, const std::string& name) {
  const Bounds b = bounds_of(name);
  double v = process_parameter(p, name);
  if (name == "alpha_hard") v = p.alpha_hard / p.alpha_easy;
  return logit((v - b.lo) / (b.hi - b.lo));
}

void from_unconstrained(AcceptanceProcessParams& p, const std::string& name, double u) {
  const Bounds b = bounds_of(name);
  const double v = b.lo + (b.hi - b.lo) * std::clamp(logistic(u), kEdge, 1 - kEdge);
  set_process_parameter(p, name, v);
}

// alpha_easy before alpha_hard, so that the fraction is applied to the new alpha_easy.
AcceptanceProcessParams params_at(const ProcessFitSpec& spec, const double* u) {
  AcceptanceProcessParams p = spec.start;
  double hard_fraction = -1;
  for (std::size_t i = 0; i < spec.free.size(); ++i) {
    if (spec.free[i] == "alpha_hard") {
      const Bounds b = bounds_of("alpha_hard");
      hard_fraction = b.lo + (b.hi - b.lo) * std::clamp(logistic(u[i]), kEdge, 1 - kEdge);
      continue;
    }
    from_unconstrained(p, spec.free[i], u[i]);
  }
  if (hard_fraction >= 0) p.alpha_hard = hard_fraction * p.alpha_easy;
  p.alpha_hard = std::min(p.alpha_hard, p.alpha_easy);
  return p;
}

// The least squares hold the fitted statistics only: a checked one (fitted: false) is not part
// of the problem at all, so every fit is bit for bit the same with or without it.
struct StatisticsCost {
  const ProcessFitSpec* spec;
  std::vector<std::size_t> fitted;  // indices of the fitted statistics
  bool operator()(double const* const* blocks, double* residuals) const {
    try {
      const AcceptanceProcess proc(params_at(*spec, blocks[0]), spec->source);
      for (std::size_t k = 0; k < fitted.size(); ++k) {
        const auto& s = spec->statistics[fitted[k]];
        residuals[k] = s.weight * (s.predict(proc) - s.value);
        if (!std::isfinite(residuals[k])) return false;
      }
    } catch (const InputError&) {
      return false;  // outside the process's domain: Ceres shortens the step
    }
    return true;
  }
};

}  // namespace

const std::vector<std::string>& process_parameter_names() {
  static const std::vector<std::string> names = {"alpha_easy",  "alpha_hard",  "easy_share",      "persistence",
                                                 "depth_decay", "calibration", "lower_rank_share", "rank_tail_shape"};
  return names;
}

double process_parameter(const AcceptanceProcessParams& p, const std::string& name) {
  if (name == "alpha_easy") return p.alpha_easy;
  if (name == "alpha_hard") return p.alpha_hard;
  if (name == "easy_share") return p.easy_share;
  if (name == "persistence") return p.persistence;
  if (name == "depth_decay") return p.depth_decay;
  if (name == "calibration") return p.calibration;
  if (name == "lower_rank_share") return p.lower_rank_share;
  if (name == "rank_tail_shape") return p.rank_tail_shape;
  throw InputError(fmt::format("acceptance process: unknown parameter '{}'{}", name,
                               models::did_you_mean(name, process_parameter_names())));
}

void set_process_parameter(AcceptanceProcessParams& p, const std::string& name, double value) {
  if (name == "alpha_easy") p.alpha_easy = value;
  else if (name == "alpha_hard") p.alpha_hard = value;
  else if (name == "easy_share") p.easy_share = value;
  else if (name == "persistence") p.persistence = value;
  else if (name == "depth_decay") p.depth_decay = value;
  else if (name == "calibration") p.calibration = value;
  else if (name == "lower_rank_share") p.lower_rank_share = value;
  else if (name == "rank_tail_shape") p.rank_tail_shape = value;
  else process_parameter(p, name);  // throws with the suggestion
}

ProcessFitResult fit_acceptance_process(const ProcessFitSpec& spec) {
  if (spec.statistics.empty()) throw InputError(fmt::format("{}: no acceptance statistics to fit", spec.source));
  if (spec.free.empty()) throw InputError(fmt::format("{}: no free parameters", spec.source));
  for (const auto& name : spec.free) process_parameter(spec.start, name);  // names check
  if (std::none_of(spec.statistics.begin(), spec.statistics.end(), [](const auto& s) { return s.fitted; }))
    throw InputError(fmt::format("{}: every statistic is checked only (fitted: false): nothing to fit", spec.source));
  for (const auto& s : spec.statistics)
    if (!std::isfinite(s.value) || !s.predict)
      throw InputError(fmt::format("{}: statistic '{}' has no finite value or no prediction", spec.source, s.label));
  spec.start.validate(spec.source);

  std::vector<std::size_t> fitted;
  for (std::size_t i = 0; i < spec.statistics.size(); ++i)
    if (spec.statistics[i].fitted) fitted.push_back(i);
  const int n = int(spec.free.size()), m = int(fitted.size());
  std::vector<double> u(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) u[std::size_t(i)] = to_unconstrained(spec.start, spec.free[std::size_t(i)]);

  ceres::NumericDiffOptions diff;
  diff.relative_step_size = spec.derivative_step;
  auto* cost = new ceres::DynamicNumericDiffCostFunction<StatisticsCost, ceres::CENTRAL>(new StatisticsCost{&spec, fitted},
                                                                                          ceres::TAKE_OWNERSHIP, diff);
  cost->AddParameterBlock(n);
  cost->SetNumResiduals(m);
  ceres::Problem problem;
  problem.AddResidualBlock(cost, nullptr, u.data());
  ceres::Solver::Options opt;
  opt.linear_solver_type = ceres::DENSE_QR;
  opt.max_num_iterations = 40;
  opt.logging_type = ceres::SILENT;
  opt.num_threads = 1;  // deterministic
  ceres::Solver::Summary summary;
  quiet_ceres_logging();
  ceres::Solve(opt, &problem, &summary);

  ProcessFitResult r;
  r.process = AcceptanceProcess(params_at(spec, u.data()), spec.source);
  r.converged = summary.termination_type == ceres::CONVERGENCE;
  r.notes = spec.notes;
  for (const auto& s : spec.statistics) {
    const double v = s.predict(r.process);
    r.predicted.push_back(v);
    r.residuals.push_back(v - s.value);
    if (s.fitted) r.max_abs_residual = std::max(r.max_abs_residual, std::abs(v - s.value));
  }

  // Directions the statistics do not pin: small singular values of the Jacobian with respect to
  // each parameter's natural value scaled by its range (the unconstrained coordinates would call
  // every parameter at a bound "open", since the logistic map is flat there). A parameter within
  // 0.1 % of its range from a bound is reported in at_bound; the derivative is then one-sided,
  // into the range. Fewer statistics than parameters leave n - m directions open at least.
  const AcceptanceProcessParams best = r.process.params();
  Eigen::MatrixXd jac(m, n);
  bool jac_ok = true;
  for (int b = 0; b < n && jac_ok; ++b) {
    const std::string& name = spec.free[std::size_t(b)];
    const Bounds range = name == "alpha_hard" ? Bounds{0, best.alpha_easy} : bounds_of(name);
    const double width = range.hi - range.lo, v = process_parameter(best, name);
    const double h = 1e-4 * width;
    const bool low = v - range.lo < 1e-3 * width, high = range.hi - v < 1e-3 * width;
    if (low || high) r.at_bound.push_back(name);
    const double up = high ? v : v + h, down = low ? v : v - h;
    AcceptanceProcessParams pu = best, pd = best;
    set_process_parameter(pu, name, up);
    set_process_parameter(pd, name, down);
    try {
      const AcceptanceProcess proc_up(pu, spec.source), proc_down(pd, spec.source);
      for (int a = 0; a < m; ++a) {
        const auto& st = spec.statistics[fitted[std::size_t(a)]];
        jac(a, b) = st.weight * (st.predict(proc_up) - st.predict(proc_down)) / (up - down) * width;
      }
    } catch (const InputError&) {
      jac_ok = false;
    }
  }
  if (jac_ok) {
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(jac, Eigen::ComputeFullV);
    const auto& sv = svd.singularValues();
    const double top = sv.size() > 0 ? sv(0) : 0;
    std::vector<double> load(std::size_t(n), 0.0);
    for (int k = 0; k < n; ++k) {
      const double sk = k < sv.size() ? sv(k) : 0;
      if (top > 0 && sk > 1e-3 * top) continue;
      for (int b = 0; b < n; ++b) load[std::size_t(b)] += svd.matrixV()(b, k) * svd.matrixV()(b, k);
    }
    for (int b = 0; b < n; ++b)
      if (load[std::size_t(b)] > 0.25) r.left_open.push_back(spec.free[std::size_t(b)]);
  }
  return r;
}

}  // namespace search
