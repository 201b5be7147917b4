#pragma once
// The tree-sd scenario's typed seam (search/scenarios/typed_scenario.hpp): its parameters and
// rows as structs, for callers in C++ (plan's tree SD scheme). Declarations, defaults and
// columns are in tree_sd_scenario.cpp.
#include <optional>
#include <string>
#include <vector>

#include "search/scenarios/typed_scenario.hpp"

namespace search::tree_sd {

struct Params {
  std::vector<long long> batch;  // sequences per step
  long long x_max = 0;           // largest verification length considered
  bool measured_only = false;
  std::string x_search;          // every_x or optimum
  std::string aat_from, trace, acceptance;  // acceptance other than the workload's measured AAT
  std::optional<double> alpha;
  std::string draft_hw, draft_link, system, draft_device;  // where the draft runs
};

// The best x at one context and batch.
struct Row {
  std::string hw, model, algorithm, task;
  long long context = 0, batch = 0;
  double ar_tokens_per_s = 0;
  long long best_x = 0;
  double best_tokens_per_s = 0, speedup = 0, aat_at_best = 0, t_verify_s = 0, t_draft_s = 0;
  std::optional<double> ridge_x;  // unset where x / T_v does not level off
  std::string regime, ridge_x_bound, aat_source, at_search_limit, aat_source_tables;
  double speedup_low = 0, speedup_high = 0;  // over the acceptance band (equal to speedup without one)
};

const TypedScenario<Params, Row>& scenario();

}  // namespace search::tree_sd
