// vLLM V1's scheduler (vllm/v1/core/sched/scheduler.py), chunked prefill: one budget of tokens a
// step (ServingConfig::chunked_prefill_tokens; vLLM's SchedulerConfig default is 2048), spent on
// the running requests' decode tokens first, then on the prefills in progress, then on new
// admissions, first come first served, each prefilling what the budget leaves (its prompt in
// chunks); the decodes and the chunks share one forward. Preemption by recompute only.
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "models/config_error.hpp"
#include "search/scenarios/serving/serving_instance.hpp"
#include "search/scenarios/serving/serving_scheduler.hpp"

namespace search::serving {
namespace {

class VllmV1Scheduler final : public ServingScheduler {
 public:
  void validate(const ServingConfig& c, const ServingStepCosts&) const override {
    if (c.chunked_prefill_tokens <= 0)
      throw models::InputError("serve: vLLM V1's scheduler takes a token budget a step: --chunked-prefill-tokens at "
                               "least --max-num-seqs");
    if (c.specpipe.stages > 0)
      throw models::InputError("serve: --method specpipe-db runs V0's scheduler (a prefill step, then pipeline steps of "
                               "every running request): not --scheduler vllm-v1 or --chunked-prefill-tokens");
    if (c.chunked_prefill_tokens < c.max_num_seqs)
      throw models::InputError(fmt::format("serve: --chunked-prefill-tokens {} is below --max-num-seqs {}: a step's "
                                           "budget holds at least one token per running sequence (vLLM refuses the "
                                           "same)", c.chunked_prefill_tokens, c.max_num_seqs));
    if (c.swap_preemption)
      throw models::InputError("serve: swap preemption is vLLM V0's; V1's scheduler (chunked prefill) preempts by "
                               "recompute only: give one");
  }

  bool start_step(ServingInstance& s, VirtualEngine& e) const override {
    const ServingConfig& c = s.config();
    long long budget = c.chunked_prefill_tokens;
    DecodePlan d;
    if (!e.running.empty()) {
      // The decodes take the budget first, at most all of it: as vLLM V1 truncates a request's
      // speculative tokens to what the budget leaves, k is cut to fit (the budget holds one
      // token per running sequence: it is at least max_num_seqs).
      d = s.plan_decode(e, int(std::max<long long>(0, c.chunked_prefill_tokens / (long long)e.running.size() - 1)));
      budget = std::max(0LL, budget - d.verified);
    }
    std::vector<std::pair<std::size_t, long long>> chunks;  // (request, tokens this step)
    long long chunk_tokens = 0;
    // A chunk takes the budget's tokens and the KV blocks they fill (the last chunk one slot more,
    // for the first generated token), cut to the blocks free: V1 allocates slots per chunk.
    auto take_chunk = [&](std::size_t i) {
      ServingRequest& r = s.request(i);
      const long long computed = r.context() - r.prefill_left;
      long long take = std::min(r.prefill_left, budget);
      auto blocks_after = [&](long long tokens) {
        return blocks_for(computed + tokens + (tokens == r.prefill_left ? 1 : 0), c.block_tokens);
      };
      while (take > 0 && blocks_after(take) - r.blocks > e.free_blocks)
        take = std::min(take - 1, (r.blocks + e.free_blocks) * c.block_tokens - computed);
      if (take <= 0) return;
      const long long grow = std::max(0LL, blocks_after(take) - r.blocks);
      e.free_blocks -= grow;
      r.blocks += grow;
      chunks.emplace_back(i, take);
      chunk_tokens += take;
      budget -= take;
    };
    for (std::size_t i : e.partial) {
      if (budget <= 0) break;
      take_chunk(i);
    }
    while (budget > 0 && s.admit_head(e, int(e.running.size() + e.partial.size()), -1, budget)) {
      const std::size_t i = e.waiting.front();
      e.waiting.pop_front();
      s.request(i).prefill_left = s.request(i).context();
      e.partial.push_back(i);
      take_chunk(i);
    }
    if (e.running.empty() && chunks.empty()) {
      if (e.partial.size() > 1) {
        // Prefills in progress hold the cache between them and none can take a chunk: the
        // latest admitted gives its blocks back and waits again (as V1 preempts the lowest
        // priority), so the earlier ones finish.
        s.preempt(e, e.partial, s.latest_admitted(e.partial), nullptr);
        return false;
      }
      s.drop_waiting(e);
      return false;
    }
    s.note_kv_peak();
    const double step_start = s.now();
    const int queued = s.queued_requests();
    // A mixed step is one forward: its decode step plus what the chunks' tokens add to a forward
    // of the decode's tokens (the weights are read once; the linear layers see every token).
    const long long mean_chunk =
        chunks.empty() ? 0 : (chunk_tokens + (long long)chunks.size() - 1) / (long long)chunks.size();
    double step_s = 0, period_s = 0;
    const ServingStepCosts& costs = s.costs();
    if (d.batch > 0) {
      step_s = costs.decode_s(d.batch, d.tokens_per_seq, d.bucket, d.k);
      period_s = s.decode_period_s(d.batch, d.tokens_per_seq, d.bucket, d.k, step_s);
      if (chunk_tokens > 0) {
        const double before = costs.prefill_s(1, d.verified), after = costs.prefill_s(1, d.verified + chunk_tokens);
        step_s += std::max(0.0, after - before);
        period_s += std::max(0.0, s.prefill_period_s(1, d.verified + chunk_tokens, after) -
                                      s.prefill_period_s(1, d.verified, before));
      }
    } else {
      step_s = costs.prefill_s(int(chunks.size()), mean_chunk);
      period_s = s.prefill_period_s(int(chunks.size()), mean_chunk, step_s);
    }
    s.begin_step(e, s.now() + step_s, period_s, [&s, &e, d, chunks, step_start, queued, mean_chunk] {
      if (d.batch > 0) s.retire_decode(e, d);
      else if (!chunks.empty()) ++s.stats().prefill_steps;
      for (const auto& [i, take] : chunks) s.request(i).prefill_left -= take;
      std::vector<std::size_t> still;
      for (std::size_t i : e.partial)
        if (s.request(i).prefill_left > 0) still.push_back(i);
        else s.prefilled(e, i);
      e.partial = std::move(still);
      s.record_step(e, {step_start, s.now(), d.batch == 0, d.batch > 0 ? d.batch : int(chunks.size()),
                        d.batch > 0 ? d.tokens_per_seq : int(mean_chunk), s.kv_in_use(), queued});
    });
    return true;
  }
};

const ServingSchedulerRegistration kVllmV1Registered(
    "vllm-v1", {"vLLM V1's chunked prefill: one token budget a step (--chunked-prefill-tokens), "
                "decodes first, then prompts in chunks in one forward; recompute preemption",
                [] { return std::make_unique<VllmV1Scheduler>(); }});

}  // namespace
}  // namespace search::serving
