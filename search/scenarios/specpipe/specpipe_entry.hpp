#pragma once
// The specpipe scenario's typed seam (search/scenarios/typed_scenario.hpp): its parameters and
// rows as structs, for callers in C++ (plan's SpecPipe and pipeline schemes). Declarations,
// defaults and columns are in specpipe_entry.cpp.
#include <optional>
#include <string>
#include <vector>

#include "search/scenarios/typed_scenario.hpp"

namespace search::specpipe::entry {

struct Params {
  std::string system, draft;
  std::vector<long long> w, k;  // tree widths and candidates per bottom node searched
  long long tokens = 0, seed = 0;
  double prune_ms = 0;
  std::string acceptance;       // auto, hit-curve, or a band's name or path
  bool boundary = false;
  std::string hit_points, hit_curve, level_accuracy;
  std::optional<double> hit_rate;
  std::string trace;
  std::vector<long long> batch;
  std::string verify;
  double top_p = 0;
  std::string confidence;
  bool baselines = false;
  std::string engine;
};

// One method (SpecPipe at one w and k, SpecPipe-DB, or a baseline) at one batch.
struct Row {
  std::string method;
  long long batch = 0, w = 0, k = 0;
  std::string tree;
  double tbt_mean_s = 0;
  // Over the acceptance band where one was run for the row (the best SpecPipe, SpecInfer's tree,
  // the baselines' own time); unset for the other SpecPipe points under a band.
  std::optional<double> tbt_low_s, tbt_high_s;
  double tbt_p50_s = 0, tbt_p90_s = 0, tbt_p99_s = 0, tokens_per_s = 0, tokens_per_s_total = 0, hit_rate = 0,
         substituted_rate = 0, flush_rate = 0, step_s = 0;
  std::optional<double> e_tbt_eq1_s, e_tbt_eq2_s, e_tbt_mechanism_s;  // SpecPipe at batch 1 only
  double link_bytes_per_step = 0, max_hop_bytes = 0, stage_util_min = 0, stage_util_max = 0, draft_util = 0,
         speedup_vs_pp = 0;
  std::string acceptance;
  bool best = false;  // the fastest SpecPipe point of its batch
  // Not columns (the CSV has them in `acceptance` and the footer):
  // where the row's acceptance was measured for another target ("measured against X, not Y");
  std::string acceptance_borrowed;
  // on the best SpecPipe row at batch 1, the level-hit boundary sentence ("level-hit boundary
  // (...): faster than pp-vllm from a level hit of 0.41, ..."), where it was scanned.
  std::string level_hit_boundary;
};

const TypedScenario<Params, Row>& scenario();

}  // namespace search::specpipe::entry
