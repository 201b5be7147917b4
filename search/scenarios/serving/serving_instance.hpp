#pragma once
// The state of one simulated serving instance and the operations every scheduler shares
// (serving_scheduler.hpp): requests, virtual engines with their queues and KV blocks, the clock,
// and the steps' bookkeeping: admitting a queue's head, preempting, planning a decode step with
// its speculation and retiring it, a prefill's end, a step's start on the pipeline's entry. The
// event loop (run()) asks the configured scheduler for each engine's next step and jumps from
// event to event. What a scheduler decides (which requests a step takes, in what order, what it
// preempts first) is the scheduler's; what a step costs is ServingStepCosts'; the rest is here.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "search/scenarios/serving/serving_simulation.hpp"

namespace search::serving {

class DispatchPolicy;
class ServingScheduler;

// A request and its random stream (lengths, yields and misses drawn from it alone).
struct ServingRequest {
  RequestRecord rec;
  std::mt19937_64 rng;
  long long generated = 0;       // output tokens so far (the first comes with the prefill)
  long long blocks = 0;          // KV blocks held
  long long admitted_order = 0;  // when it was last admitted (preemption takes the latest)
  long long prefill_left = 0;    // chunked prefill: tokens of its (re)prefill still to compute
  long long swapped_blocks = 0;  // swap preemption: KV blocks it holds in the CPU swap space
  int yield = 1;                 // the yield at its next output position (Markov chain state)
  int refill = 0;                // SpecPipe-DB: steps until its token reaches the last stage again
  int replay = -1;               // its record of ServingConfig::replay (-1: lengths and yields drawn)
  bool chain_started = false;
  long long context() const { return rec.prompt_tokens + generated; }
};

// One scheduler's state: vLLM V0 runs one per pipeline stage (a virtual engine), each with its own
// queue and its share of the KV cache, its steps in the pipeline beside the others'.
struct VirtualEngine {
  std::deque<std::size_t> waiting;
  std::vector<std::size_t> running;
  std::deque<std::size_t> swapped;   // swap preemption: out in the CPU swap space, first out first back
  std::vector<std::size_t> partial;  // chunked prefill: admitted, prefilled in part (admission order)
  std::size_t prefilling = 0;        // admitted, in their prefill step (neither waiting nor running)
  long long free_blocks = 0, swap_free_tokens = 0;
  // Its step in flight: when it ends and what its end does (the tokens kept, requests out).
  bool busy = false;
  double end_s = 0, idle_since_s = 0;
  std::function<void()> complete;
  // Requests it holds, in any state (vLLM's get_num_unfinished_seq_groups).
  std::size_t unfinished() const {
    return waiting.size() + running.size() + prefilling + partial.size() + swapped.size();
  }
  bool has_work() const { return !waiting.empty() || !running.empty() || !partial.empty() || !swapped.empty(); }
};

// A decode step of an engine's running requests, as planned before it starts.
struct DecodePlan {
  bool speculate = false;
  int k = 0;  // draft tokens per sequence this step (0: no speculation)
  int verify = 1, batch = 0, tokens_per_seq = 1;
  long long bucket = 0, verified = 0;
  long long swap_out_tokens = 0;  // KV copied to the swap space before the step (swap preemption)
  std::vector<int> tokens_verified;
};

long long blocks_for(long long tokens, int block_tokens);

class ServingInstance {
 public:
  // Validates the configuration (InputError naming the option) and draws the arrivals.
  ServingInstance(const ServingWorkload& workload, const ServingConfig& config, const ServingStepCosts& costs,
                  const ServingScheduler& scheduler);
  ~ServingInstance();
  ServingInstance(const ServingInstance&) = delete;
  ServingInstance& operator=(const ServingInstance&) = delete;

  // Runs the event loop to the last step's end (once).
  ServingRun run();

  // --- For schedulers -------------------------------------------------------------------------
  const ServingConfig& config() const { return c_; }
  const ServingStepCosts& costs() const { return costs_; }
  double now() const { return t_; }
  ServingRequest& request(std::size_t i) { return reqs_[i]; }
  ServingRun& stats() { return run_; }
  // The drafting method's measured chain (null: no speculation, or SpecPipe-DB's levels).
  bool chain_speculation() const { return chain_ != nullptr; }
  bool pipelined_trees() const { return specpipe_; }

  // Admits the head of `e`'s queue: false when it must wait (the batch limit, blocks, the step's
  // token room); a prompt larger than the engine's whole cache is dropped with that reason and the
  // next one tried. `in_flight`: requests the engine already runs or prefills; `token_room`: the
  // prompt tokens the step may still take (-1: any); `first_chunk` (chunked prefill): the tokens of
  // its first chunk, whose blocks are all it needs now (-1: the whole prompt).
  bool admit_head(VirtualEngine& e, int in_flight, long long token_room, long long first_chunk = -1);
  // Nothing admissible and nothing running: the queue waits for memory that never frees.
  void drop_waiting(VirtualEngine& e);
  // The most recently admitted request of `v` (not empty): preemption takes it first.
  std::vector<std::size_t>::iterator latest_admitted(std::vector<std::size_t>& v);
  // Preempts *it out of `from` (one of e's lists), its blocks freed: by recompute (back to the
  // front of the queue, to prefill what it had again) or, given `swap_out` (V0's swap mode), copied
  // to the CPU swap space (the tokens copied added to *swap_out) or aborted when that is full.
  void preempt(VirtualEngine& e, std::vector<std::size_t>& from, std::vector<std::size_t>::iterator it,
               long long* swap_out);
  // Before a decode step of e's running requests: each reserves the blocks its verified tokens may
  // fill, the latest admitted (running or prefilling in part) giving way while they do not fit;
  // then the tokens each verifies. `k_cap`: the most draft tokens the step may take (-1: no cap).
  DecodePlan plan_decode(VirtualEngine& e, int k_cap);
  // After it: the tokens each kept, the rejected drafts' blocks back, finished requests out.
  void retire_decode(VirtualEngine& e, const DecodePlan& d);
  // A request whose prefill completed: its first token (the first time), then decoding or done.
  void prefilled(VirtualEngine& e, std::size_t i);
  // Starts e's step at now(): its tokens are out at `end_s` (the caller sums now() and its parts in
  // the order they run), when `done` runs; `period_s` is its hold on the pipeline's entry, at most
  // the whole step.
  void begin_step(VirtualEngine& e, double end_s, double period_s, std::function<void()> done);
  // A step's hold on the pipeline's entry: its period where the costs give one, else its latency.
  double decode_period_s(int batch, int tokens, long long context, int draft_tokens, double latency_s) const;
  double prefill_period_s(int requests, long long tokens, double latency_s) const;
  // Keeps a step that started at `record.start_s` for the timeline (ServingConfig::record_steps_until_s).
  void record_step(const VirtualEngine& e, StepRecord record);
  int queued_requests() const;
  long long kv_in_use() const;  // KV tokens in use over every engine's share, in whole blocks
  void note_kv_peak();          // run statistics: the KV in use now counts towards the peak

 private:
  void finish(VirtualEngine& e, ServingRequest& r);
  int next_yield(ServingRequest& r);
  void move_chain(ServingRequest& r, long long tokens);
  double in_system() const;
  void advance_to(double end);

  const ServingWorkload& workload_;
  const ServingConfig& c_;
  const ServingStepCosts& costs_;
  const ServingScheduler& scheduler_;
  const YieldChain* chain_ = nullptr;
  bool specpipe_ = false;
  long long capacity_blocks_ = 0;  // each virtual engine's share of the cache

  std::vector<ServingRequest> reqs_;
  std::vector<VirtualEngine> engines_;
  ServingRun run_;
  std::size_t next_arrival_ = 0;
  long long admissions_ = 0;
  double t_ = 0, in_system_integral_ = 0, batch_sum_ = 0, kept_sum_ = 0, k_sum_ = 0;
  long long kept_steps_ = 0;
  double entry_free_s_ = 0;  // when the pipeline's entry takes the next step
  bool ran_ = false;
  std::unique_ptr<DispatchPolicy> dispatch_;  // ServingConfig::dispatch (serving_dispatch.hpp)
};

}  // namespace search::serving
