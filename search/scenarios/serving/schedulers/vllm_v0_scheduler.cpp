// vLLM V0's default scheduler (vllm/core/scheduler.py _schedule_default), the default of `serve`:
//   - a step is a prefill step whenever a waiting request can be admitted (first come, first
//     served: at most max_num_seqs running, at most max_batched_tokens prompt tokens per prefill
//     step, the first prompt whatever its size, KV blocks for the prompt and one more token free),
//     else a decode step of every running request;
//   - no prompt is admitted while a request is swapped out (swap preemption); swapped requests come
//     back first, copied in, while the cache holds them beside the running requests' next tokens;
//   - before a decode step the running requests reserve the blocks their verified tokens may fill,
//     the most recently admitted preempted while they do not fit (ServingInstance::plan_decode).
// On a pipeline each virtual engine runs this scheduler over its own queue and share of the cache.
// SpecPipe-DB (paper 002's dynamic batching) packs every running request into each pipeline step
// with it.
#include <fmt/format.h>

#include <algorithm>

#include "models/config_error.hpp"
#include "search/scenarios/serving/serving_instance.hpp"
#include "search/scenarios/serving/serving_scheduler.hpp"

namespace search::serving {
namespace {

class VllmV0Scheduler final : public ServingScheduler {
 public:
  void validate(const ServingConfig& c, const ServingStepCosts&) const override {
    if (c.chunked_prefill_tokens > 0)
      throw models::InputError(fmt::format("serve: --chunked-prefill-tokens {} is the budget of vLLM V1's scheduler "
                                           "(--scheduler vllm-v1); V0's prefill steps are bounded by "
                                           "--max-batched-tokens", c.chunked_prefill_tokens));
  }

  bool start_step(ServingInstance& s, VirtualEngine& e) const override {
    const ServingConfig& c = s.config();
    // Prefill whatever can be admitted, first come first served (vLLM V0 admits no prompt while
    // a request is swapped out).
    std::vector<std::size_t> admitted;
    long long prefill_tokens = 0;
    while (!e.waiting.empty() && e.swapped.empty()) {
      // A prefill step takes prompts up to max_batched_tokens (the first one whatever its size).
      if (!s.admit_head(e, int(e.running.size() + admitted.size()),
                        admitted.empty() ? -1 : std::max(0LL, c.max_batched_tokens - prefill_tokens)))
        break;
      prefill_tokens += s.request(e.waiting.front()).context();
      admitted.push_back(e.waiting.front());
      e.waiting.pop_front();
    }
    if (!admitted.empty()) {
      const long long mean_tokens = (prefill_tokens + (long long)admitted.size() - 1) / (long long)admitted.size();
      e.prefilling = admitted.size();
      s.note_kv_peak();  // their blocks, from admission on
      const double start = s.now();
      const int queued = s.queued_requests();
      const double step_s = s.costs().prefill_s(int(admitted.size()), mean_tokens);
      s.begin_step(e, s.now() + step_s, s.prefill_period_s(int(admitted.size()), mean_tokens, step_s),
                   [&s, &e, admitted, start, queued, mean_tokens] {
                     e.prefilling = 0;
                     s.record_step(e, {start, s.now(), true, int(admitted.size()), int(mean_tokens), s.kv_in_use(),
                                       queued});
                     ++s.stats().prefill_steps;
                     for (std::size_t i : admitted) s.prefilled(e, i);
                     s.note_kv_peak();
                   });
      return true;
    }
    // Swapped-out requests come back first, copied in, while the cache holds them beside the
    // running requests' next tokens (the step's most: k + 1 each); the first one whatever is left
    // when nothing runs.
    long long swap_in_tokens = 0;
    if (!e.swapped.empty()) {
      const int step_tokens = s.chain_speculation() ? c.k + 1 : 1;
      long long reserved = 0;
      for (std::size_t i : e.running) {
        const ServingRequest& r = s.request(i);
        reserved += std::max(0LL, blocks_for(r.context() + step_tokens, c.block_tokens) - r.blocks);
      }
      while (!e.swapped.empty() && int(e.running.size()) < c.max_num_seqs) {
        ServingRequest& r = s.request(e.swapped.front());
        const long long need = std::max(r.swapped_blocks, blocks_for(r.context() + step_tokens, c.block_tokens));
        if (!e.running.empty() && need + reserved > e.free_blocks) break;
        const long long take = std::min(r.swapped_blocks, e.free_blocks);
        e.free_blocks -= take;
        r.blocks = take;
        reserved += need - r.swapped_blocks;
        e.swap_free_tokens += r.swapped_blocks * c.block_tokens;
        swap_in_tokens += r.swapped_blocks * c.block_tokens;
        r.swapped_blocks = 0;
        e.running.push_back(e.swapped.front());
        e.swapped.pop_front();
        ++s.stats().swap_ins;
      }
    }
    if (e.running.empty()) {
      s.drop_waiting(e);
      return false;
    }
    // A decode step of every running request, speculating unless the policy turns it off; the
    // swap copies (in, then out) before its forward, as V0's worker runs them.
    const DecodePlan d = s.plan_decode(e, -1);
    const double step_start = s.now();
    const int queued = s.queued_requests();
    double swap_s = 0;
    if (swap_in_tokens > 0) swap_s += s.costs().swap_s(swap_in_tokens);
    if (d.swap_out_tokens > 0) swap_s += s.costs().swap_s(d.swap_out_tokens);
    s.stats().swap_s += swap_s;
    const double forward_s = s.costs().decode_s(d.batch, d.tokens_per_seq, d.bucket, d.k);
    s.begin_step(e, s.now() + swap_s + forward_s,
                 swap_s + s.decode_period_s(d.batch, d.tokens_per_seq, d.bucket, d.k, forward_s),
                 [&s, &e, d, step_start, queued] {
                   s.retire_decode(e, d);
                   s.record_step(e, {step_start, s.now(), false, d.batch, d.tokens_per_seq, s.kv_in_use(), queued});
                 });
    return true;
  }
};

const ServingSchedulerRegistration kVllmV0Registered(
    "vllm-v0", {"vLLM V0's default: prefill steps of whole prompts first, then decode steps of every running request; "
                "recompute or swap preemption; one per pipeline stage (virtual engines)",
                [] { return std::make_unique<VllmV0Scheduler>(); }});

}  // namespace
}  // namespace search::serving
