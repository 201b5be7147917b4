#include "search/scenarios/serving/serving_instance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/config_error.hpp"
#include "search/scenarios/serving/serving_dispatch.hpp"
#include "search/scenarios/serving/serving_scheduler.hpp"

namespace search::serving {
namespace {

// A request's own random stream: its id mixed into the run's seed (SplitMix64), so a request draws
// the same lengths and yields whatever else the run does.
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t id) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (id + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

long long blocks_for(long long tokens, int block_tokens) { return (tokens + block_tokens - 1) / block_tokens; }

ServingInstance::ServingInstance(const ServingWorkload& workload, const ServingConfig& c, const ServingStepCosts& costs,
                                 const ServingScheduler& scheduler)
    : workload_(workload), c_(c), costs_(costs), scheduler_(scheduler) {
  specpipe_ = c.specpipe.stages > 0;
  const DispatchPolicyInfo& dispatch = dispatch_policy(c.dispatch);
  if (specpipe_ != (c.method == "specpipe-db"))
    throw std::logic_error("simulate_serving: method specpipe-db and ServingConfig::specpipe go together");
  if (!c.replay.empty() && (!c.trace.empty() || !c.tree_by_k.empty() || dispatch.uses_chain_statistics || specpipe_))
    throw models::InputError("serve: --acceptance-trace replays each request's lengths and chain yields: not with an "
                             "arrival trace's lengths, a tree, SpecPipe-DB or the per-batch dispatch (the chain's "
                             "statistics)");
  if (specpipe_ && (c.virtual_engines != 1 || !c.tree_by_k.empty()))
    throw models::InputError("serve: SpecPipe-DB packs every running request into each pipeline step with V0's "
                             "scheduler: one virtual engine, no chunked prefill, no draft tree per step");
  if (c.method != "none" && !specpipe_) {
    const auto it = workload.acceptance.find(c.method);
    if (it == workload.acceptance.end())
      throw models::InputError(fmt::format("serve: workload {} has no measured acceptance for method '{}'", workload.name,
                                           c.method));
    chain_ = &it->second;
    // Yields measured with a bounded draft hold for chains of at most that many draft tokens, and
    // for trees no deeper.
    if (chain_->measured_draft_tokens > 0 && c.replay.empty()) {
      if (c.tree_by_k.empty() && c.k > chain_->measured_draft_tokens)
        throw models::InputError(fmt::format("serve: workload {} measured {}'s yields drafting {} tokens a step: --k "
                                             "at most {}", workload.name, c.method, chain_->measured_draft_tokens,
                                             chain_->measured_draft_tokens));
      for (const TreeStep& tree : c.tree_by_k)
        if (tree.depth > chain_->measured_draft_tokens)
          throw models::InputError(fmt::format("serve: workload {} measured {}'s yields drafting {} tokens a step: a "
                                               "tree of depth {} needs longer runs (a smaller --k)", workload.name,
                                               c.method, chain_->measured_draft_tokens, tree.depth));
    }
  }
  scheduler.validate(c, costs);
  if (c.kv_capacity_tokens < c.block_tokens)
    throw models::InputError("serve: the deployment leaves no room for a KV cache (infeasible)");
  if (c.swap_preemption && !costs.swap_s)
    throw models::InputError("serve: swap preemption needs the cost of copying KV to the CPU (a host link)");
  if (c.virtual_engines < 1) throw std::logic_error("simulate_serving: virtual_engines must be >= 1");
  // Each virtual engine's share of the cache (vllm/core/scheduler.py divides num_gpu_blocks by the
  // pipeline's size): the whole cache with one.
  capacity_blocks_ = c.kv_capacity_tokens / c.block_tokens / c.virtual_engines;
  if (capacity_blocks_ < 1)
    throw models::InputError(fmt::format("serve: the KV cache ({} tokens) holds less than a block for each of {} virtual "
                                         "engines (infeasible)", c.kv_capacity_tokens, c.virtual_engines));

  // Arrivals: gamma gaps (exponential at CV 1) from the run's own stream, lengths from each
  // request's stream; or the trace's arrivals and lengths.
  if (!c.trace.empty()) {
    for (std::size_t id = 0; id < c.trace.size(); ++id) {
      if (c.max_requests > 0 && (long long)id >= c.max_requests) break;
      ServingRequest r;
      r.rng.seed(stream_seed(c.seed, id));
      r.rec.arrival_s = c.trace[id].arrival_s;
      r.rec.prompt_tokens = c.trace[id].prompt_tokens;
      r.rec.output_tokens = c.trace[id].output_tokens;
      reqs_.push_back(std::move(r));
    }
  } else {
    std::mt19937_64 arrivals(stream_seed(c.seed, ~0ull));
    const double shape = 1 / (c.arrival_cv * c.arrival_cv);
    double t = 0;
    for (std::uint64_t id = 0;; ++id) {
      if (c.closed_batch > 0) {
        // A closed batch: every request at time 0, as a benchmark of B prompts run together.
        if ((long long)id >= c.closed_batch) break;
      } else {
        const double gap = c.arrival_cv == 1 ? -std::log(1 - uniform01(arrivals)) : gamma_unit_mean(arrivals, shape);
        t += gap / c.rate_per_s;
        if (t >= c.duration_s || (c.max_requests > 0 && (long long)id >= c.max_requests)) break;
      }
      ServingRequest r;
      r.rng.seed(stream_seed(c.seed, id));
      r.rec.arrival_s = t;
      if (!c.replay.empty()) {
        // A replayed trace: request i is record i mod N, its lengths and its yields.
        r.replay = int(id % c.replay.size());
        r.rec.prompt_tokens = c.replay[std::size_t(r.replay)].prompt_tokens;
        r.rec.output_tokens = (long long)c.replay[std::size_t(r.replay)].yields.size();
      } else {
        r.rec.prompt_tokens = sample_length(workload.quantiles, workload.prompt_tokens, uniform01(r.rng));
        r.rec.output_tokens = sample_length(workload.quantiles, workload.output_tokens, uniform01(r.rng));
      }
      reqs_.push_back(std::move(r));
    }
  }

  // vLLM V0's virtual engines (ServingConfig::virtual_engines): one scheduler each, with its own
  // queue, running set and share of the KV cache.
  engines_.resize(std::size_t(c.virtual_engines));
  for (VirtualEngine& v : engines_) {
    v.free_blocks = capacity_blocks_;
    v.swap_free_tokens = c.swap_space_tokens / c.virtual_engines;
  }

  if (!c.tree_by_k.empty() && c.tree_by_k.size() != std::size_t(c.k) + 1)
    throw std::logic_error("simulate_serving: tree_by_k needs one step per k = 0..k");
  dispatch_ = dispatch.make(DispatchInputs{c, costs, chain_});
}

ServingInstance::~ServingInstance() = default;

double ServingInstance::in_system() const {
  std::size_t n = 0;
  for (const VirtualEngine& v : engines_) n += v.unfinished();
  return double(n);
}

// Requests are in the system from their arrival, though the scheduler sees them only at its next
// step boundary (as vLLM's engine loop does): arrivals inside (t, end] count from their time.
void ServingInstance::advance_to(double end) {
  in_system_integral_ += in_system() * (end - t_);
  for (std::size_t i = next_arrival_; i < reqs_.size() && reqs_[i].rec.arrival_s <= end; ++i)
    in_system_integral_ += end - std::max(t_, reqs_[i].rec.arrival_s);
  t_ = end;
}

long long ServingInstance::kv_in_use() const {
  long long blocks = 0;
  for (const VirtualEngine& v : engines_) blocks += capacity_blocks_ - v.free_blocks;
  return blocks * c_.block_tokens;
}

void ServingInstance::note_kv_peak() { run_.peak_kv_tokens = std::max(run_.peak_kv_tokens, kv_in_use()); }

void ServingInstance::finish(VirtualEngine& e, ServingRequest& r) {
  r.rec.finish_s = t_;
  e.free_blocks += r.blocks;
  r.blocks = 0;
}

// The yield of the request's next output position.
int ServingInstance::next_yield(ServingRequest& r) {
  // A replayed request's yield at its next output position (its first comes with the prefill).
  if (r.replay >= 0) {
    const auto& yields = c_.replay[std::size_t(r.replay)].yields;
    return yields[std::size_t(std::clamp<long long>(r.generated - 1, 0, (long long)yields.size() - 1))];
  }
  if (!r.chain_started) {
    r.yield = draw_index(chain_->first, uniform01(r.rng)) + 1;
    r.chain_started = true;
  }
  return r.yield;
}

// The chain moved on by `tokens`.
void ServingInstance::move_chain(ServingRequest& r, long long tokens) {
  if (r.replay >= 0) return;  // its yields are looked up by position
  for (long long i = 0; i < tokens; ++i)
    r.yield = draw_index(chain_->transitions[std::size_t(r.yield - 1)], uniform01(r.rng)) + 1;
}

std::vector<std::size_t>::iterator ServingInstance::latest_admitted(std::vector<std::size_t>& v) {
  return std::max_element(v.begin(), v.end(), [&](std::size_t a, std::size_t b) {
    return reqs_[a].admitted_order < reqs_[b].admitted_order;
  });
}

void ServingInstance::preempt(VirtualEngine& e, std::vector<std::size_t>& from, std::vector<std::size_t>::iterator it,
                              long long* swap_out) {
  ServingRequest& r = reqs_[*it];
  const long long held_tokens = r.blocks * c_.block_tokens;
  ++r.rec.preemptions;
  ++run_.preemptions;
  if (!swap_out) {
    e.waiting.push_front(*it);
  } else if (held_tokens <= e.swap_free_tokens) {
    // V0's swap: the blocks are copied to the CPU before the step; the request waits there.
    e.swap_free_tokens -= held_tokens;
    *swap_out += held_tokens;
    r.swapped_blocks = r.blocks;
    e.swapped.push_back(*it);
    ++run_.swap_outs;
  } else {
    // vllm/core/scheduler.py _swap_out: "Aborted due to the lack of CPU swap space".
    r.rec.dropped = fmt::format("aborted: preempted with the CPU swap space full ({} of {} tokens free, {} needed), "
                                "as vLLM V0 aborts it", e.swap_free_tokens, c_.swap_space_tokens / c_.virtual_engines,
                                held_tokens);
  }
  e.free_blocks += r.blocks;
  r.blocks = 0;
  r.prefill_left = 0;
  from.erase(it);
}

DecodePlan ServingInstance::plan_decode(VirtualEngine& e, int k_cap) {
  DecodePlan d;
  // The dispatch policies see the batch that runs: chosen again after a preemption shrinks it
  // (a larger k may then preempt again; the batch only shrinks, so this ends).
  auto choose = [&] {
    if (specpipe_) {
      // Every request's levels in flight, re-reserved each step (their slots beside its context).
      d.speculate = true;
      d.k = c_.k;
      d.verify = int(c_.specpipe.tree_tokens) + 1;
      return;
    }
    d.speculate = chain_ && (c_.sd_off_above_batch <= 0 || int(e.running.size()) <= c_.sd_off_above_batch);
    d.k = d.speculate ? c_.k : 0;
    if (d.speculate && !e.running.empty()) {
      // The dispatch policy's k for the batch that runs (serving_dispatch.hpp).
      long long context_sum = 0;
      for (std::size_t i : e.running) context_sum += reqs_[i].context();
      const long long mean_context = (context_sum + (long long)e.running.size() - 1) / (long long)e.running.size();
      d.k = dispatch_->draft_tokens(int(e.running.size()),
                                    (mean_context + c_.context_bucket - 1) / c_.context_bucket * c_.context_bucket);
      d.speculate = d.k > 0;
    }
    if (k_cap >= 0 && d.k > k_cap) {
      d.k = k_cap;
      d.speculate = d.k > 0;
    }
    d.verify = d.k + 1;
  };
  choose();
  auto shortfall = [&] {
    long long need = 0;
    for (std::size_t i : e.running) {
      const ServingRequest& r = reqs_[i];
      need += std::max(0LL, blocks_for(r.context() + d.verify, c_.block_tokens) - r.blocks);
    }
    return need - e.free_blocks;
  };
  for (bool again = true; again;) {
    while (e.running.size() + e.partial.size() > 1 && shortfall() > 0) {
      const auto in_running = latest_admitted(e.running);
      const auto in_partial = e.partial.empty() ? e.partial.end() : latest_admitted(e.partial);
      const bool from_partial = in_partial != e.partial.end() &&
                                (e.running.size() <= 1 || reqs_[*in_partial].admitted_order > reqs_[*in_running].admitted_order);
      if (from_partial) preempt(e, e.partial, in_partial, nullptr);
      else preempt(e, e.running, in_running, c_.swap_preemption ? &d.swap_out_tokens : nullptr);
    }
    const int k_before = d.k;
    const bool speculate_before = d.speculate;
    choose();
    again = d.k != k_before || d.speculate != speculate_before;
  }
  long long context_sum = 0;
  d.tokens_verified.assign(e.running.size(), 1);
  for (std::size_t j = 0; j < e.running.size(); ++j) {
    ServingRequest& r = reqs_[e.running[j]];
    const long long grow = blocks_for(r.context() + d.verify, c_.block_tokens) - r.blocks;
    if (grow > 0) {
      const long long take = std::min(grow, e.free_blocks);  // a lone request beyond the cache: what is left
      e.free_blocks -= take;
      r.blocks += take;
    }
    context_sum += r.context();
    // n-gram: a position of yield 1 found no match with the source's probability: one token.
    if (specpipe_) d.tokens_verified[j] = c_.specpipe.level_tokens;
    else if (d.speculate && !(c_.method == "ngram" && next_yield(r) == 1 && uniform01(r.rng) >= chain_->match_probability))
      d.tokens_verified[j] = d.verify;
    d.verified += d.tokens_verified[j];
  }
  note_kv_peak();
  d.batch = int(e.running.size());
  if (d.batch > 0) {
    const long long mean_context = (context_sum + d.batch - 1) / d.batch;
    d.bucket = (mean_context + c_.context_bucket - 1) / c_.context_bucket * c_.context_bucket;
    d.tokens_per_seq = int((d.verified + d.batch - 1) / d.batch);
  }
  return d;
}

void ServingInstance::retire_decode(VirtualEngine& e, const DecodePlan& d) {
  ++run_.decode_steps;
  run_.speculative_steps += d.speculate ? 1 : 0;
  k_sum_ += d.k;
  batch_sum_ += d.batch;
  std::vector<std::size_t> still;
  for (std::size_t j = 0; j < e.running.size(); ++j) {
    ServingRequest& r = reqs_[e.running[j]];
    long long kept = 1;
    const long long left = r.rec.output_tokens - r.generated;
    if (specpipe_) {
      // Its verified level at the last stage emits a token unless the request is refilling;
      // a miss flushes its tree (SpecPipe-DB, PipelinedTrees).
      if (r.refill > 0) {
        --r.refill;
        kept = 0;
      } else if (!(uniform01(r.rng) < c_.specpipe.hit)) {
        r.refill = c_.specpipe.stages - 1;
      }
      kept = std::min(kept, left);
    } else if (d.tokens_verified[j] > 1 && !c_.tree_by_k.empty()) {
      // A tree: the chain's accepted run; past a miss within the depth, the recovered token
      // and a fresh run from the chain's state after it (eagle_tree_recovery.hpp).
      const TreeStep& tree = c_.tree_by_k[std::size_t(d.k)];
      long long accepted = 0, moved = 0;
      long long run_yield = next_yield(r);
      while (true) {
        accepted += std::min<long long>(run_yield - 1, tree.depth - accepted);
        if (accepted >= tree.depth || tree.recovery <= 0 || !(uniform01(r.rng) < tree.recovery)) break;
        accepted += 1;
        if (accepted >= tree.depth) break;
        move_chain(r, accepted - moved);
        moved = accepted;
        run_yield = r.yield;
      }
      kept = std::min(accepted + 1, left);
      move_chain(r, std::max(0LL, kept - moved));
    } else {
      if (d.tokens_verified[j] > 1) kept = std::min<long long>(next_yield(r), d.tokens_verified[j]);
      kept = std::min(kept, left);
      if (chain_ && d.speculate) move_chain(r, kept);
    }
    r.generated += kept;
    kept_sum_ += double(kept);
    ++kept_steps_;
    // Blocks beyond what the kept tokens fill go back (the rejected drafts' slots).
    const long long hold = blocks_for(r.context(), c_.block_tokens);
    if (r.blocks > hold) {
      e.free_blocks += r.blocks - hold;
      r.blocks = hold;
    }
    if (r.generated >= r.rec.output_tokens) finish(e, r);
    else still.push_back(e.running[j]);
  }
  e.running = std::move(still);
}

bool ServingInstance::admit_head(VirtualEngine& e, int in_flight, long long token_room, long long first_chunk) {
  while (!e.waiting.empty()) {
    ServingRequest& r = reqs_[e.waiting.front()];
    const long long tokens = r.context();  // a preempted request prefills what it had
    const long long whole = blocks_for(tokens + 1, c_.block_tokens);
    const long long need = first_chunk < 0 || first_chunk >= tokens ? whole : blocks_for(first_chunk, c_.block_tokens);
    if (whole > capacity_blocks_) {
      r.rec.dropped = c_.virtual_engines == 1
                          ? fmt::format("its prompt ({} tokens) exceeds the whole KV cache ({} tokens)", tokens,
                                        capacity_blocks_ * c_.block_tokens)
                          : fmt::format("its prompt ({} tokens) exceeds its virtual engine's share of the KV cache "
                                        "({} tokens)", tokens, capacity_blocks_ * c_.block_tokens);
      e.waiting.pop_front();
      continue;
    }
    if (in_flight >= c_.max_num_seqs || need > e.free_blocks || (token_room >= 0 && tokens > token_room)) return false;
    e.free_blocks -= need;
    r.blocks = need;
    r.admitted_order = ++admissions_;
    return true;
  }
  return false;
}

void ServingInstance::drop_waiting(VirtualEngine& e) {
  for (std::size_t i : e.waiting)
    if (reqs_[i].rec.dropped.empty()) reqs_[i].rec.dropped = "never admitted";
  e.waiting.clear();
}

void ServingInstance::prefilled(VirtualEngine& e, std::size_t i) {
  ServingRequest& r = reqs_[i];
  if (r.rec.first_token_s < 0) {
    r.rec.first_token_s = t_;
    r.generated = 1;
  }
  // SpecPipe-DB: its last token passes every stage before its tree's first level is verified.
  if (specpipe_) r.refill = c_.specpipe.stages - 1;
  if (r.generated >= r.rec.output_tokens) finish(e, r);
  else e.running.push_back(i);
}

// The pipeline's entry: a step enters once the step before it has left the busiest stage (its
// period); one virtual engine's steps follow each other, each after the last one's end.
void ServingInstance::begin_step(VirtualEngine& e, double end_s, double period_s, std::function<void()> done) {
  e.busy = true;
  e.end_s = end_s;
  e.complete = std::move(done);
  entry_free_s_ = std::min(t_ + period_s, end_s);
}

double ServingInstance::decode_period_s(int batch, int tokens, long long context, int draft_tokens,
                                        double latency_s) const {
  return costs_.decode_period_s ? costs_.decode_period_s(batch, tokens, context, draft_tokens) : latency_s;
}

double ServingInstance::prefill_period_s(int requests, long long tokens, double latency_s) const {
  return costs_.prefill_period_s ? costs_.prefill_period_s(requests, tokens) : latency_s;
}

void ServingInstance::record_step(const VirtualEngine& e, StepRecord record) {
  if (record.start_s >= c_.record_steps_until_s) return;
  record.engine = int(&e - engines_.data());
  run_.steps.push_back(record);
}

int ServingInstance::queued_requests() const {
  std::size_t n = 0;
  for (const VirtualEngine& v : engines_) n += v.waiting.size();
  return int(n);
}

ServingRun ServingInstance::run() {
  if (ran_) throw std::logic_error("ServingInstance::run: an instance runs once");
  ran_ = true;
  while (true) {
    // Arrivals so far, each to the virtual engine holding the fewest requests, the first such
    // (vLLM's LLMEngine.add_request); with one engine, its queue.
    while (next_arrival_ < reqs_.size() && reqs_[next_arrival_].rec.arrival_s <= t_) {
      VirtualEngine* least = &engines_.front();
      for (VirtualEngine& v : engines_)
        if (v.unfinished() < least->unfinished()) least = &v;
      least->waiting.push_back(next_arrival_++);
    }
    // Steps start while the pipeline's entry is free, the virtual engine idle longest first.
    while (entry_free_s_ <= t_) {
      VirtualEngine* next = nullptr;
      for (VirtualEngine& v : engines_)
        if (!v.busy && v.has_work() && (!next || v.idle_since_s < next->idle_since_s)) next = &v;
      if (!next) break;
      scheduler_.start_step(*this, *next);  // none started: it dropped or preempted, so look again
    }
    // The next event: a step's end, the entry freeing for an engine with work, or (for an engine
    // with none) the next arrival; a busy engine's scheduler sees arrivals when its step ends.
    double next_s = std::numeric_limits<double>::infinity();
    bool ready = false, idle = false;
    for (const VirtualEngine& v : engines_) {
      if (v.busy) next_s = std::min(next_s, v.end_s);
      else if (v.has_work()) ready = true;
      else idle = true;
    }
    if (ready) next_s = std::min(next_s, entry_free_s_);
    if (idle && next_arrival_ < reqs_.size()) next_s = std::min(next_s, reqs_[next_arrival_].rec.arrival_s);
    if (next_s == std::numeric_limits<double>::infinity()) break;
    advance_to(next_s);
    // The steps that end now, in the order they end (the lower index first on a tie).
    while (true) {
      VirtualEngine* done = nullptr;
      for (VirtualEngine& v : engines_)
        if (v.busy && v.end_s <= t_ && (!done || v.end_s < done->end_s)) done = &v;
      if (!done) break;
      done->busy = false;
      done->idle_since_s = t_;
      const std::function<void()> complete = std::move(done->complete);
      complete();
    }
  }
  // Steps end out of their start order when virtual engines overlap: the timeline in start order.
  std::stable_sort(run_.steps.begin(), run_.steps.end(),
                   [](const StepRecord& a, const StepRecord& b) { return a.start_s < b.start_s; });
  run_.end_s = t_;
  run_.mean_in_system = t_ > 0 ? in_system_integral_ / t_ : 0;
  run_.mean_decode_batch = run_.decode_steps ? batch_sum_ / double(run_.decode_steps) : 0;
  run_.mean_tokens_per_step = kept_steps_ ? kept_sum_ / double(kept_steps_) : 0;
  run_.mean_k = run_.decode_steps ? k_sum_ / double(run_.decode_steps) : 0;
  for (auto& r : reqs_) run_.requests.push_back(r.rec);
  return run_;
}

}  // namespace search::serving
