#pragma once
// The eagle-dispatcher scenario's typed seam (search/scenarios/typed_scenario.hpp): its
// parameters and rows as structs, for callers in C++ (plan's EAGLE head scheme). Declarations,
// defaults and columns are in eagle_dispatcher_scenario.cpp.
#include <optional>
#include <string>
#include <vector>

#include "search/scenarios/typed_scenario.hpp"

namespace search::eagle_dispatcher {

struct Params {
  std::string system;            // tensor parallel over this system's first stage; empty: --hw
  std::vector<long long> batch;  // batch sizes
  std::string tree;              // only these trees (comma separated); empty: every candidate
  // "best": per batch the tree the dispatcher chooses; "paper-example": paper 004 §3.4's example,
  // the chosen static tree at batch 1 and a chain of 3 draft tokens (D3-BF1) above.
  std::string policy;
  std::string chain_tpc;         // the user's head's chains LENGTH:TPC,...; empty: paper 004's
  double latency_target_ms = 0;
  double sd_host_us = 0;
  double seq_host_us = 0;  // used only where given (else the stack's per_sequence_host_us)
  std::string stack;             // the stack with --hw
  long long max_nodes = 0, max_depth = 0;
  std::string engine;
};

// The chosen tree at one context and batch.
struct Row {
  std::string where, model;
  long long context = 0, batch = 0;
  RowStatus status;
  // Unset (empty) where the batch does not fit (status infeasible).
  std::string tree;
  std::optional<long long> x;
  std::optional<double> tpc, tpc_low, tpc_high, t_verify_ms, t_draft_ms, t_host_ms, t_wait_ms, ttit_ms,
      tokens_per_s_per_seq, speedup_low, speedup, speedup_high, ar_step_ms, ar_wait_ms, weight_gb, ar_weight_gb, kv_gb;
  std::optional<bool> meets_target;
  std::string at_search_limit;  // the chosen tree is the largest searched (what to raise)
};

const TypedScenario<Params, Row>& scenario();

}  // namespace search::eagle_dispatcher
