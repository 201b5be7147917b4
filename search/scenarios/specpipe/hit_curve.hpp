#pragma once
// SpecPipe hit model (paper 002 §3.3.1, Fig. 7): H(k), the probability that the target's greedy
// next token is among the draft's top-k candidates, as a log-logistic curve in k,
//   H(k) = 1 / (1 + exp(-(a + b ln k))),   H(0) = 0, increasing to 1,
// i.e. the rank of the target's token among the draft's candidates follows a log-logistic
// distribution (a power-law tail 1 - H(k) ~ e^-a k^-b, the shape of top-k coverage curves).
// The published points are few (Fig. 7's text gives top-1 and top-8 for an 8B draft, only top-32
// for the 1B draft), so the curves share one slope b (assumption: the tail of the target's rank
// distribution is a property of the target's text, the draft's size shifts the location a) and
// each curve has its own a. Fitted with Ceres to configs/acceptance/specpipe_hit_points.csv.
#include <string>
#include <vector>

namespace search::specpipe {

// ln(p / (1 - p)), the inverse of the logistic (the hit and level-accuracy curves are both
// logistic in a log argument).
double logit(double p);

struct HitPoint {
  std::string curve;   // the curve the point belongs to (a draft name, e.g. "llama-3.2-1b")
  std::string draft, target;
  int k = 1;           // top-k candidates of the draft
  double hit = 0;      // fraction of target tokens among them
};

// Points from a CSV with columns curve,draft,target,k,hit ('#' comments). InputError naming the
// file and line for a missing column, k < 1, or a hit outside [0, 1].
std::vector<HitPoint> load_hit_points(const std::string& path);

struct HitCurve {
  std::string name;
  double a = 0, b = 1;
  // H(k): probability the target's token is within the draft's top-k (k may be fractional).
  double operator()(double k) const;
  // P(rank = j) = H(j) - H(j - 1), j >= 1.
  double rank_probability(int j) const;
  // The rank (>= 1) whose CDF first reaches u in (0, 1): inverse-CDF sampling of the rank.
  // Ranks beyond `cap` return cap + 1 (outside any candidate list this project builds).
  long long rank_for_quantile(double u, long long cap = 1000000) const;
  // The curve through (k1, h1) and (k2, h2): solved, not fitted. Needs 0 < h < 1 and k1 != k2.
  static HitCurve through(std::string name, double k1, double h1, double k2, double h2);
};

struct HitFit {
  std::vector<HitCurve> curves;  // one per curve name, in first-appearance order
  double slope = 0;              // the shared b
  double r2 = 0, rmse = 0;       // over all points
  int n = 0;
  // The curve for a draft model: the curve of that exact name; InputError listing the curves
  // otherwise.
  const HitCurve& curve(const std::string& name) const;
};

// Least squares on H(k) - hit over all points (Ceres, multi-start over the slope). InputError
// (naming `what`) when there are no points or a curve has no point with 0 < hit < 1 to place it.
HitFit fit_hit_curves(const std::vector<HitPoint>& points, const std::string& what = "hit curve fit");

}  // namespace search::specpipe
