#pragma once
// Draft-model choice for one target on one board (paper 001 §5): for each candidate chain draft
// with token accuracy a (given, or predicted from a prompt's feature vector by the ordinary
// least-squares model of eq. (8)), the best window gamma and its throughput from objective (1)
// with the engine's latencies; the draft with the highest throughput wins. Theorem 2's
// condition Delta n > (Delta c / Delta rho) L is reported for every candidate against the
// fastest draft (smallest latency ratio c), next to the throughput comparison it predicts.
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "search/window/chain_sd.hpp"

namespace search {

// alpha^u = u^T Z + eps (eq. 8); Z from the least-squares solution over training prompts.
struct AccuracyOlsModel {
  Eigen::VectorXd coefficients;  // Z
  long long samples = 0;
  double r_squared = 0;          // on the training prompts (uncentred: the model has no intercept)
  double predict(const std::vector<double>& features) const;
};
// rows: feature vectors u_p; accuracies: observed alpha^{u_p}. Throws models::InputError (naming
// `what`) when there are fewer prompts than features or the vectors are linearly dependent.
AccuracyOlsModel fit_accuracy_ols(const std::vector<std::vector<double>>& rows,
                                  const std::vector<double>& accuracies, const std::string& what);

// Training prompts per draft from a CSV with header `draft,alpha,<feature names..>`.
struct AccuracyTrainingRow {
  std::string draft;
  double accuracy = 0;
  std::vector<double> features;
};
struct AccuracyTrainingSet {
  std::string path;
  std::vector<std::string> feature_names;
  std::vector<AccuracyTrainingRow> rows;
  AccuracyOlsModel fit(const std::string& draft) const;  // rows of that draft only
};
AccuracyTrainingSet read_accuracy_training(const std::string& path);

struct DraftCandidate {
  std::string name;
  double accuracy = 0;
  std::string accuracy_source;  // "given", "ols", "ols-clamped"
  ChainLatency latency;
};

struct DraftEvaluation {
  std::string name, accuracy_source;
  double accuracy = 0;
  double cost_ratio = 0;     // c: draft time per token / AD target step
  GammaChoice best;          // over 1..gamma_max
  double speedup = 0;        // over AD on the same target and board
  double rho = 0;            // paper 001's acceptance rate E / gamma at the best window
  double steps = 0;          // n = L / (d rho) speculation steps for an answer of L tokens
  // Theorem 2 against the baseline (smallest c): "baseline", "holds", "fails", "undefined"
  // (Delta rho <= 0: the condition's division has no meaning).
  std::string theorem2;
  double delta_n = 0, theorem2_bound = 0;  // Delta n and (Delta c / Delta rho) L
  bool faster_than_baseline = false;
  bool chosen = false;
};

std::vector<DraftEvaluation> evaluate_drafts(const std::vector<DraftCandidate>& candidates,
                                             long long answer_tokens);

}  // namespace search
