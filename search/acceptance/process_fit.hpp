#pragma once
// One estimator for the acceptance process (acceptance_process.hpp): Ceres least squares of
// whatever acceptance statistics exist for a draft / target / task, each reproduced by the
// process as an output. A statistic is a published value plus how the process predicts it:
// exactly (chain / tree tokens per call, top-k hit rates, mean acceptance) or by simulating the
// algorithm whose own selection produced it (DuoDecoding's first-token checks, paper 003
// Table 4), so that nothing is read as a per-token alpha that is not one.
//
// Parameters are fitted in unconstrained coordinates (logistic / log maps onto each parameter's
// range), so bounds always hold. After the fit, the Jacobian's singular values say which
// directions the data do not pin down: the parameters loading on those directions are reported
// as left open, and callers build a band over them (process_band.hpp) instead of quoting one
// value. Parameters not listed as free keep the values of `start` (fixed or borrowed; `notes`
// says which and from where).
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "search/acceptance/acceptance_process.hpp"

namespace search {

struct AcceptanceStatistic {
  std::string label;     // what was measured and where it is published
  double value = 0;      // the published value
  double weight = 1;     // residual = weight * (predicted - value)
  std::function<double(const AcceptanceProcess&)> predict;
  // false: checked on every fit but not minimised (a statistic that moves in steps, such as a
  // share of a tree's nodes, gives the least squares no slope).
  bool fitted = true;
  // Its own consistency tolerance; NaN: the statistics file's.
  double tolerance = std::numeric_limits<double>::quiet_NaN();
};

// Free parameter names: alpha_easy, alpha_hard (fitted as a fraction of alpha_easy),
// easy_share, persistence, depth_decay, calibration, lower_rank_share, rank_tail_shape.
struct ProcessFitSpec {
  AcceptanceProcessParams start;
  std::vector<std::string> free;
  std::vector<AcceptanceStatistic> statistics;
  // Relative step of the numeric derivative in unconstrained coordinates: tiny for exact
  // predictions, wide (0.02-0.1) for simulated ones, whose seeded counts move in steps.
  double derivative_step = 1e-6;
  std::string source = "acceptance process fit";
  std::vector<std::string> notes;  // carried into the result (borrowed parameters, sources)
};

struct ProcessFitResult {
  AcceptanceProcess process = AcceptanceProcess::independent(0.5);
  std::vector<double> predicted;   // per statistic
  std::vector<double> residuals;   // predicted - value, per statistic
  double max_abs_residual = 0;     // over the fitted statistics
  std::vector<std::string> left_open;  // free parameters the statistics do not determine
  std::vector<std::string> at_bound;   // free parameters that ended on a bound of their range
  std::vector<std::string> notes;
  bool converged = false;
};

ProcessFitResult fit_acceptance_process(const ProcessFitSpec& spec);

// The names accepted in ProcessFitSpec::free, in order.
const std::vector<std::string>& process_parameter_names();
// Reads / writes a parameter by name (InputError for an unknown name).
double process_parameter(const AcceptanceProcessParams& p, const std::string& name);
void set_process_parameter(AcceptanceProcessParams& p, const std::string& name, double value);

}  // namespace search
