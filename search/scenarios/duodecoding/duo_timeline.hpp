#pragma once
// Lays a plan (duo_plan.hpp) on the system timeline (sim/system/timeline.hpp, simulated in
// SystemC): the target's device stream, the draft's device stream and the link lanes between
// them. Per DuoDecoding iteration i:
//   target  T_i: forward over x_i tokens                      after V_{i-1}
//   draft   D_i: budget passes                                after R_{i-1} (the verdict reached it)
//   link    S_i: the draft tokens -> target                   after D_i
//   target  V_i: verification (the two meet)                  after T_i and S_i
//   link    R_i: verdict (appended tokens) -> draft           after V_i
// SpS is D_i -> S_i -> T_i -> V_i -> R_i in sequence; AD is T_i after T_{i-1}. A draft on the
// target's own device shares its stream (FIFO) and needs no link. An iteration ends when V_i
// (AD: T_i) ends; tokens are available then.
// Decode steps are costed at the context reached when their iteration starts (prompt plus the
// tokens appended so far, DuoCosts::decode_context), so T_v and T_d grow along the run.
#include <vector>

#include "search/draft_placement.hpp"
#include "search/scenarios/duodecoding/duo_costs.hpp"
#include "search/scenarios/duodecoding/duo_plan.hpp"
#include "sim/system/timeline.hpp"

namespace search::duodecoding {

// Message sizes. DuoDecoding's are the tensors the authors' code sends between its two processes
// (github.com/KaiLv69/DuoDecoding, src/engine.py, `duodecoding()`): after drafting, the draft's
// process sends `draft_prob_comm`, float32 of budget + 1 elements (the sequence count and the
// flattened draft ids; the line that would add the draft's distributions is commented out), and
// the target's process answers with `comm_tensor`, three int32 (mode, accepted length or chosen
// sequence, resampled token). Paper 003 §3 names a stage "communication for synchronizing output
// probabilities", but its runs (the scripts' `--temp 0`) verify greedily and send ids only. SpS
// uses search::draft_to_target_bytes (draft tokens with their distributions, as speculative
// sampling needs) and search::verdict_bytes; AD sends nothing. On the timeline each message is a routed send on
// the system's links (sim::add_routed_send); outside it DuoCosts::transfer_s gives the same time.
// (The code's own path, gloo over the host's loopback and then a copy of the ids to the GPU, is
// costed as that send.)
double duo_draft_message_bytes(int budget);
double duo_verdict_message_bytes();

struct IterationTiming {
  double end_s = 0;        // when the iteration's tokens are available
  double iteration_s = 0;  // end_s minus the previous iteration's end_s
  double target_s = 0;     // target forward busy time
  double draft_s = 0;      // draft busy time
  double comm_s = 0;       // both transfers, send start to arrival
};

struct ScenarioRun {
  Plan plan;
  sim::TaskGraph graph;
  sim::TimelineRun run;
  std::vector<IterationTiming> timing;
  double seconds = 0;  // until the last iteration's tokens
  double tokens_per_s = 0;
  double target_busy_s = 0, draft_busy_s = 0, link_busy_s = 0;
  double target_idle_fraction = 0, draft_idle_fraction = 0;
  double mean_iteration_s = 0, mean_target_s = 0, mean_draft_s = 0, mean_comm_s = 0;
  double tokens_per_iteration = 0;     // appended
  double processed_per_iteration = 0;  // tokens through the target's forward (x)
};

// Lays `plan` on a fresh timeline and simulates it (sim/system/timeline).
ScenarioRun run_plan(const DuoPlacement& pl, const DuoCosts& c, const Plan& plan, int draft_vocab);

// Time to first token (paper 003 §4.3) for a prompt of `prompt` tokens, from the same engine and
// route costs, each layout laid on its own timeline (a shared device serves the draft first):
//   AD:                  target prefill;
//   SpS (sequential):    draft prefill + gamma passes -> tokens to the target -> target forward
//                        over prompt + gamma tokens (prefill and verification in one pass);
//   DuoDecoding parallel: target prefill alongside draft prefill + the first iteration's passes,
//                        then they meet;
//   DuoDecoding without the parallel layout: the same work one after the other.
// DuoDecoding's first iteration drafts one token whatever the budget: the authors' code sets its
// budget to 1 while prefilling (github.com/KaiLv69/DuoDecoding, src/engine.py, `duodecoding()`,
// commit 154f0a1: `if prefilling: self.args.gamma = 1`).
inline constexpr int kDuoFirstIterationDraftTokens = 1;
struct TtftResult {
  double ad_s = 0, sps_s = 0, duo_parallel_s = 0, duo_sequential_s = 0;
};

// `duo_budget`: the run's DuoDecoding budget, which sizes the draft's message (duo_draft_message_bytes).
TtftResult time_to_first_token(const DuoPlacement& pl, const DuoCosts& c, int prompt, int sps_gamma, int duo_budget,
                               int draft_vocab);

}  // namespace search::duodecoding
