#pragma once
// The speculation window table of a chain draft (paper 001 objective (1)), computed once for
// `specdse window` and Python's `specdse.window`: the checks, the bounds, the latency cases
// (paper 001's constant T_v, or an engine through a one-device deployment) and every row. The
// front ends only lay the rows out (a text/CSV/JSON table, or pandas columns).
#include <string>
#include <vector>

#include "experiments/cli/window_acceptance.hpp"
#include "models/hardware_spec.hpp"
#include "search/draft_placement_names.hpp"
#include "search/window/chain_sd.hpp"

namespace experiments {

// How the front end spells its inputs, for errors ("--alpha" on the command line, "alpha" in Python).
struct WindowInputNames {
  std::string alpha, acceptance, cost_ratio, t_verify_s, hw, model, draft, context, gamma_max;
  std::string placement;  // the draft placement's inputs, e.g. "--draft-hw, --system"
};

struct WindowRequest {
  std::vector<double> alphas;   // independent accuracies, or
  std::string band;             // an acceptance process band (name or path)
  std::vector<double> cost_ratios;  // constant mode (paper 001's c), T_v = t_verify_s
  double t_verify_s = 1.0;
  bool t_verify_given = false;
  const models::HardwareSpec* hw = nullptr;  // engine mode: hw, model, draft, contexts
  std::string model, draft, engine = "roofline";
  std::vector<long long> contexts;
  search::DraftPlacementNames placement;  // engine mode: where the draft runs (default: beside the target)
  int gamma_max = 16;
  bool map = false;  // gamma* per case and acceptance only
  std::string config_dir;  // empty: the default configs
  WindowInputNames names;
};

// One latency table: per cost ratio (constant mode) or per context (engine mode).
struct WindowCase {
  std::string hw, model, draft, engine, draft_device;  // engine mode
  long long context = 0;                               // engine mode
  double cost_ratio = 0;  // as given (constant mode), or c from the engine's latencies
  search::ChainLatency latency;
};

struct WindowRow {
  std::size_t case_index = 0, acceptance_index = 0;
  int gamma = 0;  // the window (map: gamma*)
  double expected_tokens = 0, t_draft_s = 0, t_verify_s = 0, t_iteration_s = 0, tokens_per_s = 0, speedup = 0;
  bool best = false;             // the case's best window (map: always)
  bool at_search_limit = false;  // the best window is gamma_max
};

struct WindowTable {
  bool engine_mode = false;
  bool with_placement = false;  // a draft placement was given (its column is shown)
  WindowAcceptances acceptances;
  std::vector<WindowCase> cases;
  std::vector<WindowRow> rows;  // per case, per acceptance: every gamma 0..gamma_max (map: gamma* alone)
  bool best_at_limit = false;   // some best window equals gamma_max
  int gamma_max = 0;
};

// InputError naming the front end's inputs for a bad or conflicting request, or work past
// search/work_bound.hpp's bounds; a design that does not fit memory is refused, not timed.
WindowTable compute_window_table(const WindowRequest& request);

}  // namespace experiments
