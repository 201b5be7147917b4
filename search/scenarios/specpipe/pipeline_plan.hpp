#pragma once
// What happens in each pipeline step of SpecPipe and of its baselines, decided before any time is
// attached: how many tokens each stage computes, what it sends on, what the draft drafts, when
// the last stage emits tokens and when the pipeline flushes. The timeline (specpipe_timeline.hpp)
// turns a plan into tasks with durations from the device engines; the two are kept apart so the
// pipeline logic is tested without a latency model and the same plan can be timed on any engine.
//
// SpecPipe (paper 002 Algorithm 1), per step: every stage computes the tree level it holds; the
// last stage holds the verified token and emits the next one (greedy top-1); every level is
// pruned to the emitted token's subtree (a miss empties the pipeline and the emitted token
// re-enters stage 0 alone: the refill); surviving embeddings move one stage on; the draft's new
// level (drafted during the step from the tree pruned one step earlier, then pruned too) enters
// stage 0.
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "search/scenarios/specpipe/speculative_tree.hpp"

namespace search::specpipe {

// Where stage 0's input of a step comes from.
enum class FirstInput {
  none,             // stage 0 computes nothing this step
  draft_previous,   // the level the draft sent at the end of the previous step
  draft_now,        // a tree the draft builds at the start of this step (static-tree baseline)
  verified_token,   // the token the last stage emitted in the previous step (refill, plain PP)
};

struct StepPlan {
  std::vector<int> compute;      // tokens each stage computes (0: idle)
  std::vector<int> batch;        // sequences among them per stage (empty: one each)
  std::vector<int> send;         // tokens stage i sends to stage i + 1 after the step (size m - 1)
  FirstInput first = FirstInput::none;
  bool first_needs_token = false;  // stage 0 also takes the last verified token (a batch mixing refills)
  std::vector<int> draft_passes; // widths of the draft's passes in this step (empty: none)
  int draft_batch = 1;           // sequences each draft pass serves (widths are per sequence)
  int level_tokens = 0;          // tokens the draft sends to stage 0 after its passes
  bool level_waits_for_verify = false;  // the new level is pruned by this step's token first
  int emitted = 0;               // tokens the last stage emits at the end of its compute
  std::vector<int> emitted_by;   // requests that emitted (empty: request 0 emitted all)
  std::vector<int> emitted_each; // tokens each of emitted_by emitted
  bool verify = false;           // the emitted token is checked against the tree (hit / miss)
  bool hit = false;
  bool flush = false;
  bool prune = false;            // every stage prunes its tree state (paper: ~5 ms, an input)
};

struct PipelinePlan {
  std::string method;
  int stages = 0;
  std::vector<StepPlan> steps;
  long long checks = 0, hits = 0;  // verified levels and how many held the target's token
  long long substituted = 0;       // of the hits, levels relaxed / top-p verification passed instead
  long long tokens = 0;            // tokens emitted in all
  int requests = 1;                // sequences decoded together (SpecPipe-DB, multi-batch baselines)
  // Per stage-to-stage hop, embedding bytes per token as a multiple of the hidden state (empty:
  // 1; EAGLE-3 in the pipeline also carries the fused feature layers to its head).
  std::vector<double> hop_payload_factor;
  bool draft_on_last_stage = false;  // the draft runs on the last stage's device (EAGLE heads)
  bool ragged_batches = false;       // steps pack requests of different widths (SpecPipe-DB)
  double hit_rate() const { return checks ? double(hits) / double(checks) : 0.0; }
  long long flushes() const { return checks - hits; }
};

// Candidates a rank model lists at least, beside any k asked for: SpecInfer's static tree branches
// at most 3 ways and a top-p nucleus needs a few candidates, so 8 leaves room for both.
inline constexpr int kMinRankCandidates = 8;

struct SpecPipeParams {
  int stages = 8;
  int width = 64;       // w: nodes per tree level
  int candidates = 16;  // k: candidates per bottom node
  long long tokens = 1000;  // tokens to emit after the first one
  std::uint64_t seed = 1;
  Verification verification = Verification::greedy;
  double top_p = 0.9;   // the target's nucleus for Verification::top_p
  long long steps = 0;  // > 0: stop after this many pipeline steps instead (SpecPipe-DB's requests)
};

// SpecPipe: steps until `tokens` + 1 tokens are emitted (the first one ends the initial fill).
PipelinePlan plan_specpipe(const SpecPipeParams& p, const RankModel& ranks);

// SpecPipe-DB (paper 002 §4, dynamic batching): `requests` sequences, each with its own tree and
// hit draws (seed mixed with the request's index), packed into every pipeline step together: a
// stage computes the levels of all requests it holds, each request verifies, prunes and flushes
// on its own. Runs until every request has emitted `tokens` + 1 tokens.
PipelinePlan plan_specpipe_db(const SpecPipeParams& p, int requests, const RankModel& ranks);

// SpecPipe without dynamic batching (paper 002 §4.4's iteration-based scheduling): `requests`
// sequences share one pipeline and take turns at stage 0, one request's level (or refill token)
// entering per step, round robin; a stage computes the one level it holds. Each request has its
// own tree and hit draws, verifies when its token leaves the last stage and flushes only its own
// levels. With B requests a request's levels are B stages apart; with B >= stages its level is
// not yet in the pipeline when its token is verified, so it decodes as plain PP.
PipelinePlan plan_specpipe_interleaved(const SpecPipeParams& p, int requests, const RankModel& ranks);

// Plain pipeline parallelism: one token per full pipeline pass, fed back to stage 0.
PipelinePlan plan_plain_pp(int stages, long long tokens);

// Pipeline parallelism over `requests` sequences in min(requests, stages) micro-batches (as even
// as possible): micro-batch j enters stage 0 at step j and re-enters one step after its token
// leaves the last stage, so up to `stages` micro-batches keep every stage busy (vLLM's virtual
// engines; paper 002's PP multi-batch). Every request emits `tokens` + 1 tokens.
PipelinePlan plan_multibatch_pp(int stages, int requests, long long tokens);

// Pipeline parallelism with a static token tree (SpecInfer <1,1,3,1,1,1,1,1>): per iteration the
// draft builds the tree level by level (one pass per level, after the previous iteration's
// tokens are known), the whole tree (1 + nodes tokens) passes through the pipeline, and the last
// stage accepts the longest path that matches the target's greedy tokens plus the bonus token.
// Acceptance from the rank model: at depth d the target's token is accepted iff its rank among
// the accepted parent's candidates is <= the tree's branching b_d (every node of a level has the
// same branching), i.e. P(accept depth d | depth d-1) = H(b_d).
PipelinePlan plan_static_tree(int stages, const std::vector<int>& branching, long long tokens,
                              const RankModel& ranks, std::uint64_t seed, int requests = 1);

// Draft-then-verify iterations of a static tree through the pipeline, the shared mechanics of the
// static-tree baselines: each of min(requests, stages) micro-batches cycles through the pipeline
// with its requests' trees of `tree_tokens` tokens (root included); the draft builds the next tree
// (one pass per entry of `passes`, widths per request) once the micro-batch's tokens are known;
// `accepted(rng, position)` gives the draft tokens a request accepts in one iteration (the
// emitted tokens are those plus the bonus token) and `depth` the draft depths it can accept.
struct TreeIterations {
  std::string method;
  int stages = 8;
  int requests = 1;
  int tree_tokens = 1;
  std::vector<int> passes;
  int depth = 0;
  long long tokens = 1000;
  std::uint64_t seed = 1;
  bool draft_on_last_stage = false;
  std::vector<double> hop_payload_factor;
};
PipelinePlan plan_tree_iterations(const TreeIterations& it,
                                  const std::function<int(std::mt19937_64&, long long)>& accepted);

// Expected accepted tokens per iteration (bonus included) of a static tree: 1 + sum_d prod_{e<=d} H(b_e).
double static_tree_aat(const std::vector<int>& branching, const HitCurve& curve);

}  // namespace search::specpipe
