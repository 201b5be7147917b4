#include "search/window/draft_select.hpp"
#include "models/input_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "models/config_error.hpp"
#include "sim/io/csv.hpp"

namespace search {

using models::InputError;

double AccuracyOlsModel::predict(const std::vector<double>& features) const {
  if (long(features.size()) != coefficients.size())
    throw InputError(fmt::format("--features: expected {} values (one per training feature), got {}",
                                 coefficients.size(), features.size()));
  double a = 0;
  for (std::size_t i = 0; i < features.size(); ++i) a += features[i] * coefficients[long(i)];
  return a;
}

AccuracyOlsModel fit_accuracy_ols(const std::vector<std::vector<double>>& rows,
                                  const std::vector<double>& accuracies, const std::string& what) {
  if (rows.empty() || rows.size() != accuracies.size())
    throw InputError(fmt::format("{}: expected one accuracy per prompt and at least one prompt, got {} prompts",
                                 what, rows.size()));
  const long r = long(rows.front().size());
  if (r < 1) throw InputError(fmt::format("{}: expected at least one feature, got none", what));
  if (long(rows.size()) < r)
    throw InputError(fmt::format("{}: expected at least {} prompts (one per feature), got {}", what, r, rows.size()));
  Eigen::MatrixXd B(long(rows.size()), r);
  Eigen::VectorXd alpha(long(rows.size()));
  for (std::size_t p = 0; p < rows.size(); ++p) {
    if (long(rows[p].size()) != r)
      throw InputError(fmt::format("{}: prompt {}: expected {} features, got {}", what, p + 1, r, rows[p].size()));
    for (long j = 0; j < r; ++j) B(long(p), j) = rows[p][std::size_t(j)];
    alpha(long(p)) = accuracies[p];
  }
  // Least squares through a rank-revealing QR: the same estimate as the paper's
  // (sum b b^T)^-1 sum b alpha, without squaring the condition number.
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(B);
  if (qr.rank() < r)
    throw InputError(fmt::format("{}: expected linearly independent prompt feature vectors, got rank {} of {}",
                                 what, qr.rank(), r));
  AccuracyOlsModel m;
  m.coefficients = qr.solve(alpha);
  m.samples = long(rows.size());
  const double ss_res = (B * m.coefficients - alpha).squaredNorm();
  const double ss_tot = alpha.squaredNorm();
  m.r_squared = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 0.0;
  return m;
}

AccuracyOlsModel AccuracyTrainingSet::fit(const std::string& draft) const {
  std::vector<std::vector<double>> feats;
  std::vector<double> acc;
  for (const auto& row : rows)
    if (row.draft == draft) {
      feats.push_back(row.features);
      acc.push_back(row.accuracy);
    }
  if (feats.empty())
    throw InputError(fmt::format("{}: draft: expected training prompts for '{}', got none", path, draft));
  return fit_accuracy_ols(feats, acc, fmt::format("{}: draft {}", path, draft));
}

namespace {
double parse_number(const std::string& file, int line_no, const std::string& key, const std::string& s) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || s.empty() || !std::isfinite(v))
    throw InputError(fmt::format("{}: line {}: {}: expected a number, got '{}'", file, line_no, key, s));
  return v;
}
}  // namespace

AccuracyTrainingSet read_accuracy_training(const std::string& path) {
  std::ifstream in = models::open_input_file(path, "accuracy training set");
  if (!in) throw InputError(fmt::format("{}: file: expected a readable CSV, got none", path));
  AccuracyTrainingSet set;
  set.path = path;
  bool header = false;
  sim::CsvReadOptions options;
  options.trim = true;  // hand-written files align their columns
  sim::CsvReader reader(in, path, options);
  for (sim::CsvRecord record; reader.next(record);) {
    const int line_no = record.line;
    const auto& cells = record.cells;
    if (!header) {
      if (cells.size() < 3 || cells[0] != "draft" || cells[1] != "alpha")
        throw InputError(fmt::format("{}: header: expected 'draft,alpha,<feature>..', got '{}'", path, record.text));
      set.feature_names.assign(cells.begin() + 2, cells.end());
      header = true;
      continue;
    }
    if (cells.size() != set.feature_names.size() + 2)
      throw InputError(fmt::format("{}: line {}: expected {} columns, got {}", path, line_no,
                                   set.feature_names.size() + 2, cells.size()));
    AccuracyTrainingRow row;
    row.draft = cells[0];
    row.accuracy = parse_number(path, line_no, "alpha", cells[1]);
    if (!(row.accuracy > 0 && row.accuracy < 1))
      throw InputError(fmt::format("{}: line {}: alpha: expected a token accuracy in (0, 1), got {}", path,
                                   line_no, cells[1]));
    for (std::size_t j = 2; j < cells.size(); ++j)
      row.features.push_back(parse_number(path, line_no, set.feature_names[j - 2], cells[j]));
    set.rows.push_back(std::move(row));
  }
  if (set.rows.empty())
    throw InputError(fmt::format("{}: rows: expected at least one training prompt, got none", path));
  return set;
}

std::vector<DraftEvaluation> evaluate_drafts(const std::vector<DraftCandidate>& candidates,
                                             long long answer_tokens) {
  if (candidates.empty()) throw InputError("--drafts: expected at least one draft, got none");
  if (answer_tokens < 1)
    throw InputError(fmt::format("--answer-tokens: expected tokens >= 1, got {}", answer_tokens));
  std::vector<DraftEvaluation> out;
  for (const auto& c : candidates) {
    require_accuracy(fmt::format("--alpha ({})", c.name), c.accuracy);
    DraftEvaluation e;
    e.name = c.name;
    e.accuracy = c.accuracy;
    e.accuracy_source = c.accuracy_source;
    e.cost_ratio = c.latency.cost_ratio();
    e.best = optimal_gamma(c.accuracy, c.latency, 1);  // a chosen draft drafts at least one token
    e.speedup = e.best.tokens_per_s * c.latency.iteration_s(0);
    e.rho = e.best.expected_tokens / e.best.gamma;
    e.steps = double(answer_tokens) / (e.best.gamma * e.rho);
    out.push_back(e);
  }
  std::size_t base = 0, chosen = 0;
  for (std::size_t i = 1; i < out.size(); ++i) {
    if (out[i].cost_ratio < out[base].cost_ratio) base = i;
    if (out[i].best.tokens_per_s > out[chosen].best.tokens_per_s) chosen = i;
  }
  out[chosen].chosen = true;
  const auto& b = out[base];
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto& e = out[i];
    if (i == base) {
      e.theorem2 = "baseline";
      continue;
    }
    e.faster_than_baseline = e.best.tokens_per_s > b.best.tokens_per_s;
    e.delta_n = b.steps - e.steps;
    const double delta_c = e.cost_ratio - b.cost_ratio;
    const double delta_rho = e.rho - b.rho;
    if (delta_rho <= 0) {
      e.theorem2 = "undefined";
      continue;
    }
    e.theorem2_bound = delta_c / delta_rho * double(answer_tokens);
    e.theorem2 = e.delta_n > e.theorem2_bound ? "holds" : "fails";
  }
  return out;
}

}  // namespace search
