#pragma once
// The duodecoding scenario's typed seam (search/scenarios/typed_scenario.hpp): its parameters and
// its summary rows (AD, SpS, DuoDecoding) as structs, for callers in C++ (plan's DuoDecoding
// scheme). Declarations, defaults and columns are in duodecoding_scenario.cpp; the other views
// (show = sequences, sweep, ttft, iterations) are tables of their own, not typed rows.
#include <optional>
#include <string>
#include <vector>

#include "search/scenarios/typed_scenario.hpp"

namespace search::duodecoding {

struct Params {
  std::string system, draft, draft_device, sps_draft, sps_draft_device;
  std::string acceptance;        // an acceptance process band
  std::optional<double> alpha;   // or an independent per-token acceptance
  std::string trace;             // or an acceptance trace
  std::string budget;            // draft passes per iteration, or auto
  std::string sequences;         // static:N or dynamic
  long long max_sequences = 0, sps_gamma = 0, tokens = 0, prompt = 0, seed = 0;
  bool boundary = false;         // scan acceptance for where DuoDecoding crosses SpS
  std::string show;              // the view: summary gives the typed rows
  long long sweep_range = 0;
  std::string engine;
};

// One method of the summary view.
struct Row {
  std::string method;  // AD, SpS or DuoDecoding
  long long budget = 0;
  std::string sequences;
  long long tokens = 0;
  double time_s = 0, tokens_per_s = 0, tokens_per_s_low = 0, tokens_per_s_high = 0, speedup_vs_ad = 0,
         speedup_vs_sps = 0, speedup_vs_sps_low = 0, speedup_vs_sps_high = 0, target_idle_fraction = 0,
         draft_idle_fraction = 0, tokens_per_iteration = 0, processed_tokens_per_iteration = 0, iteration_s = 0,
         target_forward_s = 0, draft_s = 0, comm_s = 0, ttft_s = 0, ttft_vs_ad = 0, ttft_vs_sps = 0;
  std::string acceptance;
  // Not columns (the footer says them): the device that drafts for the method (AD: none) and its
  // draft model as the config registry names it.
  std::string draft_device, draft_model;
};

const TypedScenario<Params, Row>& scenario();

}  // namespace search::duodecoding
