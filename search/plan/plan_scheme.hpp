#pragma once
// `specdse plan`'s schemes: each way of decoding that plan weighs (plain decoding, chain SD,
// tree SD, an EAGLE head, SpecPipe, DuoDecoding, ...) is one file under search/plan/schemes/
// with one static PlanSchemeRegistration, so a new scheme is one file plus that one line. A
// scheme runs the registered scenario that models it (search/scenarios/scenario_runner.hpp) at
// its best parameters and placements on the user's system, and returns one candidate per
// placement or method: a time between tokens when it was timed, else a status that says why not
// ("infeasible: ...", "not applicable: ...").
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "search/scenarios/scenario_runner.hpp"
#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/model_spec.hpp"
#include "models/system_spec.hpp"
#include "search/scenarios/typed_scenario.hpp"

namespace search {

// What plan was asked, validated, with the system resolved (a one-device system for --hw).
struct PlanSetup {
  const models::ConfigRegistry* configs = nullptr;
  models::SystemSpec system;
  bool single_hw = false;           // the system is --hw's one device, not a config
  std::string hw_name;              // --hw as given (single_hw only)
  models::ModelSpec target;
  std::vector<models::ModelSpec> drafts;  // --draft, or every smaller model with the target's vocabulary
  bool drafts_given = false;
  std::string algorithm;            // --algorithm: only this measured algorithm for tree SD
  std::string task = "govreport";
  long long context = 1024;
  int batch = 1;
  std::optional<double> alpha;      // --alpha: per-token acceptance for the draft-model schemes
  // --acceptance: an acceptance process band (name or path) for every scheme that takes one
  // (chain SD, tree SD, SpecPipe, DuoDecoding) instead of --alpha or their own default.
  std::string acceptance;
  std::string engine = "roofline";
  bool want_trace = false;

  int target_device() const { return system.stages.front().devices.front(); }
  // The target runs whole on one device (one stage of one device).
  bool target_on_one_device() const {
    return system.stages.size() == 1 && system.stages.front().devices.size() == 1;
  }
  // A scenario's inputs for this request: the system as a config name (or in memory for --hw),
  // the target, context, batch and engine.
  ScenarioInputs inputs() const;
  // The system as a command line names it: its config name when it is the shipped config of
  // that name, else its file.
  std::string system_arg() const;
  // Device `device` of the system as a one-device command names it: "--hw NAME" and, where it
  // runs a stack, "--stack STACK" (its config name when shipped, else its file) and " --host HOST"
  // (host_arg).
  std::string hw_args(int device) const;
  // Just "--hw NAME" (for a command whose stack is a parameter of its own).
  std::string hw_arg(int device) const;
  // " --host HOST" where the device runs on a host from a file (configs/hosts name when shipped,
  // else its path); "" on the built-in reference host.
  std::string host_arg(int device) const;
};

struct PlanCandidate {
  PlanCandidate() = default;
  PlanCandidate(std::string scheme_name, std::string where)
      : scheme(std::move(scheme_name)), placement(std::move(where)) {}

  std::string scheme;      // "plain", "chain SD", "tree SD", ...
  std::string placement;   // where the draft and target run
  std::string parameters;  // the best parameters found ("gamma=3", "tree N64", "w=64 k=16")
  std::string status = "ok";  // "ok", "infeasible: ...", "not applicable: ..."
  double tbt_s = 0;        // time between tokens of one sequence (status ok)
  double tbt_low_s = 0, tbt_high_s = 0;  // over the acceptance band; equal to tbt_s without one
  double ttft_s = 0;       // time to first token: the scenario's where it times the prefill, else plan's
  // What runs and is held beside the target, for plan's time to first token and memory headroom
  // (search/plan/plan_first_token.hpp, plan_memory_headroom.hpp): a standalone draft model
  // on a device of the system, or a draft head (an algorithm) with the target's first stage.
  std::optional<models::ModelSpec> draft_model;
  int draft_device = -1;     // the draft model's device (index in the system)
  std::string draft_head;    // algorithm name of a draft head; empty: none
  int step_tokens = 1;       // tokens per sequence in one verification step (KV slots, activations)
  // The scenario's own KV reservation per sequence where it differs from the system's rule
  // (memory.kv_tokens, else context + step_tokens); 0: the system's. And the tokens whose logits
  // the last stage computes per step (-1: every step token).
  long long memory_kv_tokens = 0;
  long long memory_lm_head_tokens = -1;
  // Whether the candidate runs the target on the system's own placement (false: a regrouped
  // baseline, whose prefill and memory plan does not redo: no TTFT or headroom of its own).
  bool system_placement = true;
  // Set by plan: the batch it was planned at (the workload's, or with a request rate the
  // smallest that sustains it) and, with a request rate, the requests a second it sustains.
  int batch = 0;
  double sustained_per_s = 0;
  // Set by plan with a request rate: what a serving simulation at the rate gave (the candidate's
  // step times at every batch it was timed at under serve's scheduler; plan_request_rate.hpp).
  struct Served {
    double tbt_p50_s = 0, tbt_p90_s = 0, tbt_p99_s = 0, ttft_p50_s = 0, ttft_p90_s = 0, ttft_p99_s = 0;
    double mean_batch = 0;
    int max_batch = 0;      // the largest batch it was timed at: the scheduler's limit
    std::string status;     // the serving run's: "ok", "overloaded: ...", "N dropped (KV cache)"
  };
  std::optional<Served> served;
  // Set by plan for timed candidates on the system's placement: device memory left on the
  // fullest device (memory_checked: some device states a capacity).
  bool memory_checked = false;
  double min_free_bytes = 0;
  std::string fullest_device;
  // Set by plan: the times at each context of the mix (one entry for one context), with the
  // context's share of the requests; the SLO targets are checked at a percentile over them.
  struct ContextTimes {
    long long context = 0;
    double weight = 1;  // normalised: the shares sum to 1
    double tbt_s = 0, ttft_s = 0;
  };
  std::vector<ContextTimes> per_context;
  // Set by plan for a candidate that misses a target: its time over the limit, or the memory
  // headroom asked over the memory left (> 1).
  double target_excess = 0;
  std::string acceptance;  // the acceptance it assumed, in words
  // Where that acceptance was measured for another model, draft or task than this candidate's
  // ("borrowed from X"); empty when it is this candidate's own or a user's --alpha/--acceptance.
  std::string acceptance_borrowed;
  // Where its best parameters sit at the edge of what was searched ("x = 128: raise --x-max");
  // plan's footer and `search_limits` field list it.
  std::string search_limit;
  std::string why;         // one line: what decides this candidate's time
  std::string reproduce;   // the command that gives this candidate's numbers on its own
  std::function<void(std::ostream&)> write_trace;  // its timeline, when the scenario keeps one
  bool alpha_driven = false;  // its acceptance is --alpha (rerun at another alpha for the boundary)
  // A sentence for plan's footer (one context only), e.g. SpecPipe's level-hit boundary.
  std::string footer_note;
  std::string from_scheme;    // the registered scheme that produced it (set by plan)

  bool ok() const { return status == "ok"; }
};

using PlanSchemeRun = std::function<std::vector<PlanCandidate>(const PlanSetup&)>;

struct PlanSchemeInfo {
  std::string name;         // as the candidates' `scheme`
  std::string description;  // one line, for `specdse list` and the docs
  int order = 100;          // evaluation and listing order (the baseline first)
  PlanSchemeRun run;
};

struct PlanSchemeRegistration {
  explicit PlanSchemeRegistration(PlanSchemeInfo info);
};

// Registered schemes, in order.
std::vector<PlanSchemeInfo> plan_schemes();

// A candidate that was not timed, with the reason.
PlanCandidate untimed(std::string scheme, std::string placement, std::string status);

// An error message that starts with an absolute file path ("PATH: why") as "why (in PATH)", the path
// as portable_path names it (relative to the project or the config folder); others as they are.
std::string reason_first(const std::string& message, const std::string& config_dir);

// Runs a scenario through its typed seam (search/scenarios/typed_scenario.hpp) for a candidate
// of `scheme` at `placement`. When the scenario rejects its inputs, the candidate is appended to
// `out` untimed with the scenario's message, by the error's type: a models::InfeasibleError (the
// design does not fit) as it stands, any other InputError as "not applicable: ..."; and nothing
// comes back.
template <class P, class R>
std::optional<search::TypedResult<R>> run_candidate_scenario(const PlanSetup& s,
                                                             const search::TypedScenario<P, R>& scenario,
                                                             const ScenarioInputs& in, const P& params,
                                                             const std::string& scheme, const std::string& placement,
                                                             std::vector<PlanCandidate>& out) {
  try {
    return scenario.run(in, params, *s.configs);
  } catch (const models::InfeasibleError& e) {  // does not fit: the message has the numbers
    out.push_back(untimed(scheme, placement, e.what()));
  } catch (const models::InputError& e) {  // the scenario does not apply to this request
    out.push_back(untimed(scheme, placement, "not applicable: " + reason_first(e.what(), s.configs->dir())));
  }
  return std::nullopt;
}

// A scenario's KEY=VALUE settings (TypedScenario::settings) as its generated subcommand's flags:
// " --KEY VALUE" (shell-quoted where needed), a boolean as " --KEY" or " --no-KEY".
std::string scenario_flags(const std::string& scenario, const std::vector<std::string>& settings);

// "specdse ARGS" with --model, --context (and --batch when > 1) of the setup appended.
std::string reproduce_command(const PlanSetup& s, const std::string& args, bool with_batch = true);
// "specdse scenario NAME --param KEY=VALUE ..." with exactly the parameters a candidate's run was
// given (shell-quoted where needed) and those of the setup's model, context, batch and engine
// that the scenario reads: the command runs the very scenario call that timed the row.
std::string scenario_command(const PlanSetup& s, const std::string& name, const std::vector<std::string>& params);
// A model as a command line names it: its config name when it is the shipped config of that
// name (or has no file), else its file; with "@FORMAT" where its weights are stored quantised.
std::string model_arg(const models::ConfigRegistry& configs, const models::ModelSpec& model);

}  // namespace search
