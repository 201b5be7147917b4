#pragma once
// Best verification length per context (paper 000 §III-B): evaluate P_eff(x) =
// AAT(x) / (T_v(x) + T_d(x)) with an engine's latencies over the candidate x and take the
// maximum; compare with AD (x = 1), the "original set" (the algorithm's default tree) and the
// "naive set" (smallest x where the fitted AAT slope drops below a threshold).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/latency_engine.hpp"
#include "roofline/performance.hpp"
#include "search/acceptance/aat_fit.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/draft_placement.hpp"

namespace search {

// AAT at each x: the measured value where there is one, else the fitted curve. Measured trees
// also fix the draft's per-level widths (T_d) at their x.
struct AatSource {
  AatFit fit;
  std::map<int, double> measured;
  std::map<int, std::vector<int>> measured_widths;
  // How the values were obtained when not measured at the context asked for (e.g. "interpolated
  // between contexts 4096 and 8192"); empty for measured data. Outputs name it.
  std::string note;
  double at(int x) const;
  // Fit the measurements (plus the exact AD point AAT(1) = 1).
  static AatSource from_measurements(const std::vector<AatMeasurement>& rows, const std::string& what);
};

// "x = N: the largest measured x (beyond it AAT is extrapolated)" when `best_x` is the largest
// measured x of more than one and some larger x was possible; empty otherwise.
std::string measured_edge_note(const AatSource& aat, int best_x);

// Verification length x: tokens of one target forward pass; 64 Ki is far past every tree and
// chain in the papers (at most 768 nodes) and past a whole prefill chunk. The bound of `optimize
// --x-max` and of the tree-sd scenario's `x-max` alike.
constexpr long long kMaxVerificationLength = 1 << 16;
// Context length (tokens in the KV cache): 10 Mi tokens, Llama 4 Scout's published window and
// the longest of any model here; token counts stay far from overflowing any arithmetic.
constexpr long long kMaxContext = 10'000'000;
// Sequences per step: 64 Ki, far past serving practice (vLLM's default max_num_seqs is 256).
constexpr long long kMaxBatch = 1 << 16;

// The `at_search_limit` cell of `optimize` and the tree-sd scenario (one rule for both): where the
// best x is the largest x searched (x_max, or the algorithm's largest tree when smaller) it may
// only be the edge of the search; where it is the largest measured x, the edge of what is known;
// empty otherwise.
std::string search_limit_note(const models::AlgorithmSpec* algorithm, int x_max, int best_x, const AatSource& aat);

struct OptimizeOptions {
  int x_max = 128;              // upper bound on x (also bounded by the algorithm's trees)
  bool measured_x_only = false; // evaluate only x with a measured AAT (plus x = 1)
  double naive_slope = 0.02;    // naive set: AAT slope below this (tokens per extra node)
  std::optional<int> original_x;            // e.g. 69: LongSpec's default 68-node tree
  std::optional<std::vector<int>> original_widths;  // its per-level widths, if not the table's
  DraftPlacement draft_placement;  // where the draft runs (default: the target's device)
  // true: T_v at every x (OptimizeResult::curve is the whole curve, with the ridge and regime).
  // false: only at the x that can still beat the best P_eff, on engines whose T_v never falls as
  // x grows (LatencyEngine::verify_time_non_decreasing_in_x; others evaluate every x anyway).
  // The best, AD, naive and original points are the same either way; `curve` then holds the
  // evaluated points only and, where x was skipped, ridge_x and regime are left empty (the
  // ridge is the maximum of x / T_v over every x). For callers that report only the optimum.
  bool full_curve = true;
};

struct OptimizeResult {
  long long context = 0;
  roofline::PerfPoint ar;           // x = 1
  roofline::PerfPoint best;
  roofline::PerfPoint naive;
  std::optional<roofline::PerfPoint> original;
  std::vector<roofline::PerfPoint> curve;  // every evaluated x, ascending (see full_curve)
  // Empty when OptimizeOptions::full_curve was false and x were skipped.
  std::optional<double> ridge_x;
  std::optional<roofline::Regime> regime;
  // Whether x / T_v is still rising at the largest x searched, so the ridge (its maximum times
  // T_v(1)) is a lower bound that a larger --x-max would raise (see ridge_rises_past).
  bool ridge_at_search_limit = false;
  double speedup() const { return best.p_eff() / ar.p_eff(); }
};

roofline::PerfPoint evaluate_x(const models::LatencyEngine& engine, const models::Workload& w,
                               long long context, const AatSource& aat, int x,
                               const std::vector<int>* widths = nullptr,
                               const DraftPlacement* placement = nullptr);

OptimizeResult optimize_context(const models::LatencyEngine& engine, const models::Workload& w,
                                long long context, const AatSource& aat,
                                const OptimizeOptions& options);

// The `ridge_x_bound` cell of `optimize` and the tree-sd scenario: "lower bound: x / T_v still
// rises at x = N" where OptimizeResult::ridge_at_search_limit, else empty.
std::string ridge_bound_note(const OptimizeResult& r);

// Whether x / T_v at the curve's largest x is its maximum and more than 1 % above its best over
// the first half of the x range: the curve is still climbing, and its ridge is a lower bound.
bool ridge_rises_past(const std::vector<roofline::PerfPoint>& curve);

// Per-level node counts from a "4 4 3 1" tree-shape string (zeros dropped).
std::vector<int> parse_tree_shape(const std::string& shape);

}  // namespace search
