#pragma once
// One serving instance under load, simulated request by request (`specdse serve`): requests
// arrive (Poisson at a rate), wait, are admitted by a vLLM-like scheduler, prefilled, decoded with
// or without speculation, and leave. Events are the engine's steps: the loop jumps from step end
// to step end (and over idle gaps to the next arrival), never ticking.
//
// The scheduler is ServingConfig::scheduler, one of those registered (serving_scheduler.hpp):
// vllm-v0 (vLLM V0's default: prefill steps of whole prompts first, then decode steps of every
// running request) or vllm-v1 (V1's chunked prefill: decodes and prompt chunks in one step); the
// state and the operations they share are ServingInstance's (serving_instance.hpp), with these
// rules (docs/serving.md):
//   - admission first come, first served: at most max_num_seqs running, KV blocks for the prompt
//     and one more token free;
//   - KV cache in blocks of block_tokens; before a decode step every running request reserves the
//     blocks its step may fill (its verified tokens); when they do not fit, the most recently
//     admitted request is preempted (its blocks freed, back to the front of the queue, its prompt
//     and generated tokens prefilled again on readmission: vLLM's recompute); with
//     ServingConfig::swap_preemption (V0's swap mode) its blocks are copied to the CPU swap space
//     instead (the copy charged to the step); a request preempted with the swap space full is
//     aborted, as vLLM V0 aborts it;
//   - a request whose prompt alone exceeds the whole cache is dropped with that reason.
// Speculation inside a decode step: each request verifies k + 1 tokens (its draft's k and the
// bonus) and keeps min(yield, k + 1, tokens left), its yield drawn per output position from the
// workload's measured Markov chain (serving_workload.hpp); an n-gram step with no match verifies
// one token. A step's time is the deployment's (ServingStepCosts): the target's verify of the
// batch at its mean context and the draft's passes.
// A pipeline runs vLLM V0's virtual engines (ServingConfig::virtual_engines): one scheduler per
// stage, their steps overlapping in the pipeline, each entering once the step before it has left
// the busiest stage; the loop then jumps from event to event (a step's end, the entry freeing).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "search/scenarios/serving/acceptance_trace.hpp"
#include "search/scenarios/serving/eagle_tree_recovery.hpp"
#include "search/scenarios/serving/serving_workload.hpp"

namespace search::serving {

// Seconds of the steps a serving engine runs on its deployment (memoised by the caller).
struct ServingStepCosts {
  // A prefill step of `requests` prompts of `tokens` tokens each (their mean).
  std::function<double(int requests, long long tokens)> prefill_s;
  // A decode step: the target verifies `tokens` tokens per sequence of `batch` at `context`,
  // and the draft proposes `draft_tokens` per sequence (0: none).
  std::function<double(int batch, int tokens, long long context, int draft_tokens)> decode_s;
  // Swap preemption: copying `tokens` tokens of KV cache one way between the GPU and the CPU's
  // swap space (unset: swap preemption unavailable).
  std::function<double(long long tokens)> swap_s;
  // A pipeline's hold on its entry for each kind of step: its busiest stage's share of the step
  // (sim::SystemStepTimes::stage_period_s), after which the next virtual engine's step may enter.
  // Unset: the step's whole time (one stage).
  std::function<double(int requests, long long tokens)> prefill_period_s;
  std::function<double(int batch, int tokens, long long context, int draft_tokens)> decode_period_s;
};

// A request of an arrival trace (a file of arrival time, prompt and output lengths).
struct TracedRequest {
  double arrival_s = 0;
  long long prompt_tokens = 1, output_tokens = 1;
};

// One engine step of a run, for the timeline (ServingConfig::record_steps_until_s).
struct StepRecord {
  double start_s = 0, end_s = 0;
  bool prefill = false;
  int batch = 0;               // requests in the step
  int tokens_per_seq = 0;      // verified tokens per sequence (decode), mean prompt tokens (prefill)
  long long kv_tokens = 0;     // KV cache in use after the step (blocks x block tokens)
  int waiting = 0;             // requests queued when it started
  int engine = 0;              // the virtual engine that ran it (ServingConfig::virtual_engines)
};

// SpecPipe-DB (paper 002 §4, dynamic batching) on a pipeline: every decode step is one pipeline
// step of every running request, each request's token-tree levels in the stages behind its last
// verified token. A request whose verified level reaches the last stage emits one token; that
// level held the target's token with probability `hit` (its tree goes on), else the tree flushes
// and the emitted token enters stage 0 alone: no token for `stages` - 1 steps (the refill of
// paper 002's mechanism, expected_tbt.hpp). A prefilled prompt's first token enters the same way.
struct PipelinedTrees {
  int stages = 0;              // 0: not SpecPipe-DB
  double hit = 0;              // P(a verified level holds the target's token), per check, independent
  int level_tokens = 1;        // tokens per sequence a step is costed at (ServingStepCosts::decode_s)
  long long tree_tokens = 0;   // KV slots a request's levels in flight hold beside its context
};

struct ServingConfig {
  double rate_per_s = 1;        // mean arrival rate
  // Inter-arrival times: gamma distributed with this coefficient of variation at the rate's mean
  // (1: exponential, i.e. Poisson arrivals; above 1: bursty; below 1: more regular).
  double arrival_cv = 1;
  // A closed batch (> 0): this many requests all at time 0, lengths from the workload, no other
  // arrivals (rate_per_s, arrival_cv, duration_s and max_requests unused).
  long long closed_batch = 0;
  // Replaces the generated arrivals and lengths when not empty (sorted by arrival).
  std::vector<TracedRequest> trace;
  // Per-request acceptance traces replayed (acceptance_trace.hpp; not empty): generated request i
  // takes record i mod N's prompt and output lengths and, at each output position, its measured
  // yield instead of the workload's chain (a chain method: a step keeps min(yield, k + 1)).
  std::vector<ReplayedRequest> replay;
  // Keep every step that starts before this time in ServingRun::steps (0: none).
  double record_steps_until_s = 0;
  double duration_s = 60;       // arrivals over [0, duration_s)
  long long max_requests = 0;   // also stop arrivals after this many (0: no bound)
  std::string method = "none";  // "none", a drafting method of the workload ("eagle3", "ngram"), or
                                // "specpipe-db" (with `specpipe`)
  PipelinedTrees specpipe;      // SpecPipe-DB's steps (method "specpipe-db"; one virtual engine)
  int k = 3;                    // draft tokens a speculative step proposes
  // Token trees (empty: chains): entry i the step that drafts i tokens, for i = 0..k (its depth
  // and its recovery of a chain's miss: eagle_tree_recovery.hpp). A request keeps its chain's
  // accepted run, and past each miss within the depth the tree's recovered token and a fresh run
  // from the chain's state there, up to depth + 1 tokens.
  std::vector<TreeStep> tree_by_k;
  int sd_off_above_batch = 0;   // dispatch policy: no speculation while more run (0: always speculate)
  // The dispatch policy (serving_dispatch.hpp's registry): "static" (k every speculative step) or
  // "per-batch" (each decode step drafts the k of 0..k, 0: no speculation, with the most tokens a
  // second per sequence at the step's batch and context, from the chain's stationary yields and
  // the step's time: paper 004's argument for a per-batch choice).
  std::string dispatch = "static";
  // The scheduler (serving_scheduler.hpp's registry): "vllm-v0" or "vllm-v1" (chunked prefill).
  std::string scheduler = "vllm-v0";
  int max_num_seqs = 256;       // vLLM's default
  long long max_batched_tokens = 8192;  // prompt tokens one prefill step takes at most
  // vLLM V1's token budget (scheduler "vllm-v1"; 0 with "vllm-v0"): tokens one step takes, decodes
  // first, then prompts in chunks of what is left; vLLM's SchedulerConfig default is 2048.
  long long chunked_prefill_tokens = 0;
  int block_tokens = 16;        // vLLM's default block size
  // vLLM V0's swap preemption (V1 recomputes only): a preempted request's KV blocks go to a CPU
  // swap space of this many tokens (vLLM's --swap-space, 4 GiB per GPU by default) and come back
  // before any prompt is admitted.
  bool swap_preemption = false;
  long long swap_space_tokens = 0;
  long long kv_capacity_tokens = 0;     // the deployment's KV cache (blocks x block_tokens)
  int context_bucket = 128;     // decode steps are costed at the mean context rounded up to this
  // vLLM V0's virtual engines: a pipeline of this many stages keeps as many steps in flight, one per
  // scheduler, each with its own queue (an arrival goes to the one holding fewest requests) and an
  // equal share of the KV cache and swap space (vllm/core/scheduler.py, vllm/engine/llm_engine.py).
  // A step enters the pipeline once the one before it has left the busiest stage
  // (ServingStepCosts' periods). 1: one step at a time.
  int virtual_engines = 1;
  std::uint64_t seed = 1;
};

struct RequestRecord {
  double arrival_s = 0, first_token_s = -1, finish_s = -1;
  long long prompt_tokens = 0, output_tokens = 0;
  int preemptions = 0;
  std::string dropped;  // why, when it never finished
  bool finished() const { return finish_s >= 0; }
};

struct ServingRun {
  std::vector<RequestRecord> requests;
  double end_s = 0;                  // the last step's end
  long long prefill_steps = 0, decode_steps = 0, speculative_steps = 0, preemptions = 0;
  long long swap_outs = 0, swap_ins = 0;  // swap preemption: requests copied out, copied back
  double swap_s = 0;                      // step time spent copying KV to and from the swap space
  double mean_decode_batch = 0;      // over decode steps
  long long peak_kv_tokens = 0;      // blocks in use at most, in tokens
  double mean_in_system = 0;         // time-averaged requests waiting or running (Little's law)
  double mean_tokens_per_step = 0;   // tokens a sequence kept per decode step
  double mean_k = 0;                 // draft tokens per sequence per decode step (0 for plain steps)
  std::vector<StepRecord> steps;     // the steps recorded (ServingConfig::record_steps_until_s)
};

// An arrival trace: CSV with a header naming arrival_s, prompt_tokens and output_tokens (other
// columns ignored), '#' lines skipped; InputError naming the file, line and value for a bad one.
std::vector<TracedRequest> read_arrival_trace(const std::string& path);

// A gamma variate of shape `shape` and mean 1 from the generator (Marsaglia and Tsang; shape < 1
// by the U^(1/shape) boost): deterministic on every platform, as uniform01 is.
double gamma_unit_mean(std::mt19937_64& rng, double shape);

// Runs one configuration; deterministic for its seed. InputError for a method the workload lacks.
ServingRun simulate_serving(const ServingWorkload& workload, const ServingConfig& config, const ServingStepCosts& costs);

// The value at percentile p (0-100) of `values` (nearest rank); 0 for none.
double percentile(std::vector<double> values, double p);

}  // namespace search::serving
