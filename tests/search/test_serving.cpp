// The serving simulator (search/scenarios/serving): properties that hold whatever the step
// costs, checked with synthetic costs: a lone request's time per token is its step's, Little's
// law holds on the simulated queue, no request is lost, the KV cache is never exceeded (preemption
// instead), throughput saturates at the batch limit, the same seed gives the same run.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <tuple>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "search/scenarios/serving/serving_dispatch.hpp"
#include "search/scenarios/serving/serving_instance.hpp"
#include "search/scenarios/serving/serving_scheduler.hpp"
#include "search/scenarios/serving/serving_simulation.hpp"
#include "search/scenarios/serving/serving_summary.hpp"
#include "search/scenarios/serving/serving_workload.hpp"

using namespace search::serving;

namespace {

// Fixed lengths (every quantile the same) and an always-accepting or a mixed chain.
ServingWorkload fixed_workload(long long prompt, long long output) {
  ServingWorkload w;
  w.name = "fixed";
  w.quantiles = {0, 1};
  w.prompt_tokens = {double(prompt), double(prompt)};
  w.output_tokens = {double(output), double(output)};
  YieldChain c;
  c.first = {0.5, 0.25, 0.25};
  c.marginal = c.first;
  c.transitions = {{0.5, 0.25, 0.25}, {0.5, 0.25, 0.25}, {0.5, 0.25, 0.25}};
  c.mean_yield = 1.75;
  w.acceptance["eagle3"] = c;
  return w;
}

// A step costs a fixed part plus a part per sequence and per verified token (any shape works).
ServingStepCosts linear_costs(double fixed_s, double per_seq_s) {
  ServingStepCosts s;
  s.prefill_s = [=](int requests, long long tokens) { return fixed_s + 1e-6 * double(requests * tokens); };
  s.decode_s = [=](int batch, int tokens, long long, int draft) {
    return fixed_s + per_seq_s * batch * tokens + 0.1 * fixed_s * draft;
  };
  return s;
}

ServingConfig config(double rate, double duration_s) {
  ServingConfig c;
  c.rate_per_s = rate;
  c.duration_s = duration_s;
  c.kv_capacity_tokens = 1 << 22;
  return c;
}

// A scheduler as a user would add one (docs/extending.md: one class and one registration line):
// one request at a time, prefilled then decoded to its end, no batching, built from the serving
// instance's shared operations only.
class OneAtATimeScheduler final : public ServingScheduler {
 public:
  void validate(const ServingConfig&, const ServingStepCosts&) const override {}
  bool start_step(ServingInstance& s, VirtualEngine& e) const override {
    if (e.running.empty()) {
      if (!s.admit_head(e, 0, -1)) {
        s.drop_waiting(e);
        return false;
      }
      const std::size_t i = e.waiting.front();
      e.waiting.pop_front();
      e.prefilling = 1;
      const double step_s = s.costs().prefill_s(1, s.request(i).context());
      s.begin_step(e, s.now() + step_s, step_s, [&s, &e, i] {
        e.prefilling = 0;
        ++s.stats().prefill_steps;
        s.prefilled(e, i);
      });
      return true;
    }
    const DecodePlan d = s.plan_decode(e, -1);
    const double step_s = s.costs().decode_s(d.batch, d.tokens_per_seq, d.bucket, d.k);
    s.begin_step(e, s.now() + step_s, step_s, [&s, &e, d] { s.retire_decode(e, d); });
    return true;
  }
};
const ServingSchedulerRegistration kOneAtATimeRegistered(
    "test-one-at-a-time", {"tests only: one request at a time", [] { return std::make_unique<OneAtATimeScheduler>(); }});

}  // namespace

TEST_CASE("serving: at a vanishing rate each request runs alone: its time per token is one decode step") {
  const auto w = fixed_workload(100, 50);
  // About 30 requests of 0.5 s each over 3.5 days: none overlaps another. The same under V1's
  // chunked prefill (a 100-token prompt in two chunks of 64 and 36).
  for (const long long chunked : {0LL, 64LL}) {
    INFO("chunked prefill tokens " << chunked);
    ServingConfig c = config(1e-4, 300000);
    c.chunked_prefill_tokens = chunked;
    c.scheduler = chunked > 0 ? "vllm-v1" : "vllm-v0";
    if (chunked) c.max_num_seqs = int(chunked);  // a budget holds a token per running sequence
    const ServingRun run = simulate_serving(w, c, linear_costs(0.01, 0.001));
    REQUIRE(run.requests.size() >= 10);
    for (const auto& r : run.requests) {
      REQUIRE(r.finished());
      CHECK((r.finish_s - r.first_token_s) / double(r.output_tokens - 1) == Approx(0.011).epsilon(1e-9));
      // Its prefill: one step, or two chunks of one step each.
      CHECK(r.first_token_s - r.arrival_s <= (chunked ? 2 : 1) * 0.01 + 1e-6 * 100 + 1e-9);
    }
    CHECK(run.mean_decode_batch == Approx(1.0));
  }
}

TEST_CASE("serving: Little's law holds on the simulated queue, and no request is lost") {
  const auto w = fixed_workload(200, 100);
  for (const std::string method : {"none", "eagle3", "eagle3 chunked"}) {
    ServingConfig c = config(20, 600);
    c.method = method.substr(0, method.find(' '));
    if (method.find("chunked") != std::string::npos) {
      c.chunked_prefill_tokens = c.max_num_seqs = 128;
      c.scheduler = "vllm-v1";
    }
    const ServingRun run = simulate_serving(w, c, linear_costs(0.005, 0.0002));
    double e2e = 0;
    for (const auto& r : run.requests) {
      REQUIRE(r.finished());  // every arrival finishes (none dropped with an ample cache)
      e2e += r.finish_s - r.arrival_s;
    }
    const double n = double(run.requests.size());
    INFO(method);
    CHECK(run.mean_in_system == Approx(n / run.end_s * e2e / n).epsilon(1e-9));
    if (method != "none") {
      CHECK(run.mean_tokens_per_step > 1.2);
      CHECK(run.mean_tokens_per_step <= 4.0);
    }
  }
}

TEST_CASE("serving: the KV cache is never exceeded, a full cache preempts and every request still finishes") {
  const auto w = fixed_workload(500, 400);
  for (const long long chunked : {0LL, 256LL}) {
    INFO("chunked prefill tokens " << chunked);
    ServingConfig c = config(50, 60);
    c.kv_capacity_tokens = 16 * 1000;  // room for about 18 full requests
    c.chunked_prefill_tokens = chunked;
    c.scheduler = chunked > 0 ? "vllm-v1" : "vllm-v0";
    const ServingRun run = simulate_serving(w, c, linear_costs(0.005, 0.0001));
    CHECK(run.peak_kv_tokens <= c.kv_capacity_tokens);
    CHECK(run.preemptions > 0);
    for (const auto& r : run.requests) CHECK(r.finished());
  }
  // A prompt larger than the whole cache is dropped with the reason, not lost.
  ServingConfig tiny = config(1, 10);
  tiny.kv_capacity_tokens = 256;
  const ServingRun dropped = simulate_serving(w, tiny, linear_costs(0.005, 0.0001));
  REQUIRE(!dropped.requests.empty());
  for (const auto& r : dropped.requests) {
    CHECK_FALSE(r.finished());
    CHECK_THAT(r.dropped, Catch::Contains("exceeds the whole KV cache"));
  }
}

TEST_CASE("serving: throughput saturates at the batch limit, and a seed fixes the run") {
  const auto w = fixed_workload(100, 200);
  auto throughput = [&](double rate) {
    ServingConfig c = config(rate, 30);
    c.max_num_seqs = 16;
    const ServingRun run = simulate_serving(w, c, linear_costs(0.01, 0.0));
    double tokens = 0;
    for (const auto& r : run.requests) tokens += double(r.output_tokens);
    return tokens / run.end_s;
  };
  const double high = throughput(200), higher = throughput(400);
  // 16 sequences a step of 10 ms, 1 token each: at most 1600 tokens/s, approached when saturated.
  CHECK(high <= 1600);
  CHECK(higher == Approx(high).epsilon(0.05));
  ServingConfig c = config(10, 30);
  c.method = "eagle3";
  const auto a = simulate_serving(w, c, linear_costs(0.01, 0.001));
  const auto b = simulate_serving(w, c, linear_costs(0.01, 0.001));
  REQUIRE(a.requests.size() == b.requests.size());
  for (std::size_t i = 0; i < a.requests.size(); ++i) CHECK(a.requests[i].finish_s == b.requests[i].finish_s);
  c.seed = 2;
  const auto other = simulate_serving(w, c, linear_costs(0.01, 0.001));
  CHECK(other.requests.size() != a.requests.size());
}

TEST_CASE("serving: the shipped ShareGPT preset reads, its chain reproduces its measured mean yield, bad files are errors") {
  const std::string dir = models::ConfigRegistry::default_config_dir();
  const auto w = load_serving_workload("sharegpt-llama3.1-8b", dir);
  CHECK(w.requests == 310);
  REQUIRE(w.acceptance.count("eagle3") == 1);
  const auto& chain = w.acceptance.at("eagle3");
  // The chain's stationary mean (power iteration) against the measured mean yield: the cap at 16
  // and the 6-decimal rounding keep them within a few per cent.
  std::vector<double> p = chain.marginal;
  for (int it = 0; it < 200; ++it) {
    std::vector<double> next(p.size(), 0);
    for (std::size_t i = 0; i < p.size(); ++i)
      for (std::size_t j = 0; j < p.size(); ++j) next[j] += p[i] * chain.transitions[i][j];
    p = next;
  }
  double mean = 0;
  for (std::size_t i = 0; i < p.size(); ++i) mean += double(i + 1) * p[i];
  CHECK(mean == Approx(chain.mean_yield).epsilon(0.05));
  // Lengths: the median prompt of the quantile table.
  CHECK(sample_length(w.quantiles, w.prompt_tokens, 0.5) == std::llround(w.prompt_tokens[10]));
  CHECK_THROWS_AS(load_serving_workload("no-such-workload", dir), models::InputError);
}

TEST_CASE("serving: chunked prefill bounds every step by its token budget, where V0 stalls decodes behind a whole prompt") {
  // 4000-token prompts arriving among running decodes; a prompt token costs 1 us in a prefill.
  const auto w = fixed_workload(4000, 200);
  const auto costs = linear_costs(0.005, 0.0001);
  auto longest_step = [&](long long chunked) {
    ServingConfig c = config(5, 20);
    c.chunked_prefill_tokens = chunked;
    c.scheduler = chunked > 0 ? "vllm-v1" : "vllm-v0";
    c.record_steps_until_s = 1e9;
    const ServingRun run = simulate_serving(w, c, costs);
    for (const auto& r : run.requests) REQUIRE(r.finished());
    double longest = 0, longest_with_decodes = 0;
    int batch_at_longest = 0;
    for (const auto& s : run.steps) {
      longest = std::max(longest, s.end_s - s.start_s);
      if (!s.prefill && s.end_s - s.start_s > longest_with_decodes) {
        longest_with_decodes = s.end_s - s.start_s;
        batch_at_longest = s.batch;
      }
    }
    return std::make_tuple(longest, longest_with_decodes, batch_at_longest);
  };
  // V0: a prefill step of a whole prompt (0.005 + 4000 us) while decodes wait.
  const auto [v0_longest, v0_decodes, v0_batch] = longest_step(0);
  CHECK(v0_longest >= 0.005 + 4000e-6 - 1e-12);
  // V1 with 512 tokens a step: a step holding decodes costs its decode plus at most the budget's
  // prompt tokens (the linear cost's increment), never a whole prompt.
  const auto [v1_longest, v1_decodes, v1_batch] = longest_step(512);
  CHECK(v1_decodes <= 0.005 + 0.0001 * v1_batch + 512e-6 + 1e-12);
  CHECK(v1_longest <= std::max(v1_decodes, 0.005 + 512e-6) + 1e-12);
}

TEST_CASE("serving: the per-batch dispatch drafts fully when alone and turns speculation off where the batch makes it cost") {
  // Mean yield 1.75: one draft token keeps 1.5, two or more 1.75 tokens a step. A verified token
  // costs per_seq_s per sequence: at a large batch that term dominates, and 1.75 tokens for 3
  // verified ones lose against 1 for 1.
  const auto w = fixed_workload(100, 100);
  const auto costs = linear_costs(0.01, 0.0005);
  ServingConfig c = config(1e-3, 200000);
  c.method = "eagle3";
  c.k = 4;
  c.dispatch = "per-batch";
  const ServingRun alone = simulate_serving(w, c, costs);
  // Alone (batch 1: 0.0105 s a plain step): two drafts keep 1.75 for 0.0125 s; more keep no more.
  CHECK(alone.mean_k == Approx(2.0));
  CHECK(alone.speculative_steps == alone.decode_steps);
  ServingConfig busy = config(400, 20);
  busy.method = "eagle3";
  busy.k = 4;
  busy.max_num_seqs = 64;
  busy.dispatch = "per-batch";
  const ServingRun loaded = simulate_serving(w, busy, costs);
  // At batch 64 a plain step is 0.042 s; two drafts cost 0.106 s for 1.75 tokens: off.
  CHECK(loaded.mean_decode_batch > 40);
  CHECK(loaded.mean_k < 0.5);
  // Static k keeps drafting whatever the batch.
  busy.dispatch = "static";
  CHECK(simulate_serving(w, busy, costs).mean_k == Approx(4.0));
  // The policies are a registry: an unknown name is refused with the registered ones.
  CHECK(dispatch_policy_names() == std::vector<std::string>{"per-batch", "static"});
  busy.dispatch = "greedy-magic";
  CHECK_THROWS_WITH(simulate_serving(w, busy, costs),
                    Catch::Contains("'greedy-magic' is not a registered policy") && Catch::Contains("per-batch ("));
}

TEST_CASE("serving: a closed batch runs B requests from time 0 to their own ends, never called overloaded") {
  const auto w = fixed_workload(100, 50);
  ServingConfig c = config(1, 1);
  c.closed_batch = 24;
  c.max_num_seqs = 8;  // three waves: the last ones wait for their first token
  const ServingRun run = simulate_serving(w, c, linear_costs(0.01, 0.001));
  REQUIRE(run.requests.size() == 24);
  double last_first_token = 0;
  for (const auto& r : run.requests) {
    CHECK(r.arrival_s == 0);
    REQUIRE(r.finished());
    last_first_token = std::max(last_first_token, r.first_token_s);
  }
  CHECK(last_first_token > 2 * 49 * 0.018);  // behind two waves of 49 decode steps of 8
  const ServingSummary s = summarize_serving(run, 10, 10);
  CHECK(s.ok());
  CHECK_FALSE(s.overloaded);
}

TEST_CASE("serving: V0 never lets a prompt over the step's token limit pull others into its prefill step") {
  const auto w = fixed_workload(100, 20);
  ServingConfig c = config(1, 1);
  c.trace = {{0, 9000, 20}, {0, 9000, 20}, {0, 100, 20}};
  const ServingRun run = simulate_serving(w, c, linear_costs(0.01, 0.001));
  // 8192 tokens a prefill step: the first 9000-token prompt alone, then the second alone (it
  // exceeds the limit too), then the short one could join nothing before it: three steps at most
  // two prompts each, never all three at once.
  CHECK(run.prefill_steps >= 2);
  for (const auto& r : run.requests) CHECK(r.finished());
}

TEST_CASE("serving: chunked prefill cuts the step's drafts to its budget, and a budget below the batch limit is refused") {
  // One-token prompts: whatever the decodes leave of the budget admits many requests at once, so
  // the batch outgrows budget / (k + 1) and the drafts must be cut.
  const auto w = fixed_workload(1, 200);
  ServingConfig c = config(200, 5);
  c.method = "eagle3";
  c.k = 15;
  c.max_num_seqs = 64;
  c.chunked_prefill_tokens = 128;
  c.scheduler = "vllm-v1";
  c.record_steps_until_s = 1e9;
  const ServingRun run = simulate_serving(w, c, linear_costs(0.005, 0.0001));
  int largest_batch = 0;
  for (const auto& s : run.steps) {
    if (s.prefill) continue;
    // Every sequence's tokens together stay within the budget (tokens_per_seq is a rounded-up mean).
    CHECK((long long)s.batch * (s.tokens_per_seq - 1) <= c.chunked_prefill_tokens);
    largest_batch = std::max(largest_batch, s.batch);
  }
  CHECK(largest_batch > 16);  // a batch at which k = 15 would not fit: the drafts were cut
  CHECK(run.mean_k < 15);
  c.chunked_prefill_tokens = 32;
  CHECK_THROWS_WITH(simulate_serving(w, c, linear_costs(0.005, 0.0001)),
                    Catch::Contains("--chunked-prefill-tokens 32 is below --max-num-seqs 64"));
}

TEST_CASE("serving: swap preemption copies a request out and back instead of prefilling it again") {
  const auto w = fixed_workload(500, 400);
  ServingConfig c = config(50, 60);
  c.kv_capacity_tokens = 16 * 1000;  // room for about 18 full requests: the cache fills
  ServingStepCosts costs = linear_costs(0.005, 0.0001);
  const double per_token_s = 1e-7;  // a copy of one token's KV one way
  costs.swap_s = [=](long long tokens) { return per_token_s * double(tokens); };
  const ServingRun recompute = simulate_serving(w, c, costs);
  c.swap_preemption = true;
  c.swap_space_tokens = 1 << 22;  // ample: nothing aborted
  const ServingRun swap = simulate_serving(w, c, costs);
  REQUIRE(recompute.preemptions > 0);
  REQUIRE(swap.swap_outs > 0);
  CHECK(swap.swap_outs == swap.preemptions);
  CHECK(swap.swap_ins == swap.swap_outs);  // every request swapped out came back
  CHECK(swap.peak_kv_tokens <= c.kv_capacity_tokens);
  for (const auto& r : swap.requests) CHECK(r.finished());
  // No re-prefill: a prefill step per admission only, where recompute prefills the preempted again.
  CHECK(swap.prefill_steps < recompute.prefill_steps);
  // The copies are charged: each swapped request's blocks (whole blocks of 16) out and back.
  CHECK(swap.swap_s > 0);
  CHECK(std::fmod(swap.swap_s / per_token_s + 1e-6, 16.0) < 1e-3);
  // Recompute runs never touch the swap space.
  CHECK(recompute.swap_outs == 0);
  CHECK(recompute.swap_s == 0);
}

TEST_CASE("serving: a request preempted with the swap space full is aborted with the reason, as vLLM V0 does") {
  const auto w = fixed_workload(500, 400);
  ServingConfig c = config(50, 60);
  c.kv_capacity_tokens = 16 * 1000;
  c.swap_preemption = true;
  c.swap_space_tokens = 600;  // one request's blocks at most
  ServingStepCosts costs = linear_costs(0.005, 0.0001);
  costs.swap_s = [](long long tokens) { return 1e-7 * double(tokens); };
  const ServingRun run = simulate_serving(w, c, costs);
  long long aborted = 0;
  for (const auto& r : run.requests)
    if (!r.finished()) {
      ++aborted;
      CHECK_THAT(r.dropped, Catch::Contains("swap space full") && Catch::Contains("vLLM V0"));
    }
  CHECK(aborted > 0);
  CHECK(aborted + run.swap_outs == run.preemptions);
  CHECK_THAT(summarize_serving(run, 1e9, 1e9).status, Catch::Contains("swap space full"));
  // Swap is V0's: with V1's chunked prefill, or without a copy cost, it is refused.
  ServingConfig v1 = c;
  v1.chunked_prefill_tokens = 2048;
  v1.scheduler = "vllm-v1";
  CHECK_THROWS_WITH(simulate_serving(w, v1, costs), Catch::Contains("recompute only"));
  CHECK_THROWS_WITH(simulate_serving(w, c, linear_costs(0.005, 0.0001)), Catch::Contains("host link"));
}

TEST_CASE("serving: the dispatch policy sees the batch that runs, after a preemption shrinks it") {
  // A full cache (room for about 18 requests) preempts often; speculation is off above a
  // threshold near the batch the cache holds. Every decode step that runs no more sequences than
  // the threshold speculates (k + 1 tokens each), every larger one does not.
  const auto w = fixed_workload(500, 400);
  for (const int threshold : {15, 16, 17, 18, 19}) {
    INFO("speculation off above " << threshold);
    ServingConfig c = config(50, 30);
    c.kv_capacity_tokens = 16 * 1000;
    c.method = "eagle3";
    c.k = 3;
    c.sd_off_above_batch = threshold;
    c.record_steps_until_s = 1e9;
    const ServingRun run = simulate_serving(w, c, linear_costs(0.005, 0.0001));
    REQUIRE(run.preemptions > 0);
    int small = 0, wrong = 0;
    for (const auto& st : run.steps) {
      if (st.prefill) continue;
      const bool speculated = st.tokens_per_seq == c.k + 1;
      small += st.batch <= threshold ? 1 : 0;
      wrong += speculated != (st.batch <= threshold) ? 1 : 0;
    }
    CHECK(small > 0);
    CHECK(wrong == 0);
  }
}

TEST_CASE("serving: chunked prefill allocates KV per chunk, never beyond the cache, and every request still finishes") {
  // Prompts of 3000 tokens in a cache of 5000: one whole prompt fits, two do not. Under V1's
  // scheduler a second prompt starts in chunks beside the first's decoding, with the blocks its
  // chunks fill; the cache holds, and preemption (or waiting for blocks) lets every request end.
  const auto w = fixed_workload(3000, 50);
  for (const long long budget : {256LL, 512LL, 2048LL}) {
    INFO("chunked prefill tokens " << budget);
    ServingConfig c = config(1, 1);
    c.closed_batch = 4;
    c.kv_capacity_tokens = 5000;
    c.chunked_prefill_tokens = budget;
    c.scheduler = "vllm-v1";
    c.max_num_seqs = 4;
    c.record_steps_until_s = 1e9;
    const ServingRun run = simulate_serving(w, c, linear_costs(0.005, 0.0001));
    CHECK(run.peak_kv_tokens <= c.kv_capacity_tokens);
    REQUIRE(run.requests.size() == 4);
    for (const auto& r : run.requests) CHECK(r.finished());
    // Some step ran a decode while a second prompt's chunks held blocks beside it: the cache was
    // in use beyond one prompt and its tokens so far (3000 + 50, rounded to blocks).
    long long most = 0;
    for (const auto& st : run.steps) most = std::max(most, st.kv_tokens);
    CHECK(most > 3072);
  }
}

TEST_CASE("serving: a pipeline's virtual engines keep steps in flight: S times the throughput, a lone request unchanged") {
  const auto w = fixed_workload(100, 200);
  constexpr int kStages = 4;
  // A pipeline of four equal stages: a step takes 10 ms end to end and holds each stage 2.5 ms.
  ServingStepCosts piped = linear_costs(0.01, 0.0);
  piped.prefill_period_s = [](int, long long) { return 0.01 / kStages; };
  piped.decode_period_s = [](int, int, long long, int) { return 0.01 / kStages; };
  auto run_at = [&](double rate, int engines, const ServingStepCosts& costs, double duration_s = 30) {
    ServingConfig c = config(rate, duration_s);
    c.max_num_seqs = 16;
    c.virtual_engines = engines;
    return simulate_serving(w, c, costs);
  };
  auto throughput = [](const ServingRun& run) {
    double tokens = 0;
    for (const auto& r : run.requests) {
      REQUIRE(r.finished());
      tokens += double(r.output_tokens);
    }
    return tokens / run.end_s;
  };
  // Saturated: one engine's 16 sequences a step of 10 ms give at most 1600 tokens/s; four engines
  // with a step entering every 2.5 ms, four times that.
  const double one = throughput(run_at(400, 1, piped)), four = throughput(run_at(2000, kStages, piped));
  CHECK(one <= 1600);
  CHECK(four <= 4 * 1600);
  CHECK(four == Approx(4 * one).epsilon(0.05));
  // A step holding the pipeline's entry for its whole time: the engines take turns, no gain.
  const double turns = throughput(run_at(2000, kStages, linear_costs(0.01, 0.0)));
  CHECK(turns == Approx(one).epsilon(0.05));
  // Alone, a request's steps follow each other: its time per token is the step's latency, not
  // the period (its engine's next step waits for its last one's tokens).
  const ServingRun alone = run_at(1e-3, kStages, piped, 20000);
  REQUIRE(alone.requests.size() >= 5);
  for (const auto& r : alone.requests)
    CHECK((r.finish_s - r.first_token_s) / double(r.output_tokens - 1) == Approx(0.01).epsilon(1e-9));
  // Little's law and the cache under load: every engine within its share, the whole within the cache.
  ServingConfig c = config(300, 60);
  c.virtual_engines = kStages;
  c.method = "eagle3";
  c.kv_capacity_tokens = 16 * 1200;  // each engine's share holds about four full requests
  const ServingRun loaded = simulate_serving(w, c, piped);
  CHECK(loaded.peak_kv_tokens <= c.kv_capacity_tokens);
  CHECK(loaded.preemptions > 0);
  double e2e = 0;
  for (const auto& r : loaded.requests) {
    REQUIRE(r.finished());
    e2e += r.finish_s - r.arrival_s;
  }
  CHECK(loaded.mean_in_system == Approx(e2e / loaded.end_s).epsilon(1e-9));
  // The same seed, the same run, whatever the overlap.
  const ServingRun again = simulate_serving(w, c, piped);
  REQUIRE(again.requests.size() == loaded.requests.size());
  for (std::size_t i = 0; i < again.requests.size(); ++i) CHECK(again.requests[i].finish_s == loaded.requests[i].finish_s);
  // A prompt larger than an engine's share is dropped naming the share.
  ServingConfig tiny = config(1, 10);
  tiny.kv_capacity_tokens = 4 * 64;
  tiny.virtual_engines = kStages;
  const ServingRun dropped = simulate_serving(w, tiny, piped);
  REQUIRE(!dropped.requests.empty());
  CHECK_THAT(dropped.requests.front().dropped, Catch::Contains("virtual engine's share of the KV cache (64 tokens)"));
}

TEST_CASE("serving: SpecPipe-DB emits a token a pipeline step, and a miss costs its request a refill of stages - 1 steps") {
  const auto w = fixed_workload(100, 400);
  constexpr int kStages = 8;
  // Every step 10 ms whatever it holds: the time per token is the step times the steps a token takes.
  ServingStepCosts flat = linear_costs(0.01, 0.0);
  flat.decode_s = [](int, int, long long, int) { return 0.01; };
  auto run_with = [&](double hit) {
    ServingConfig c = config(1e-4, 1e6);
    c.method = "specpipe-db";
    c.specpipe.stages = kStages;
    c.specpipe.hit = hit;
    c.specpipe.level_tokens = 32;
    c.specpipe.tree_tokens = 160;
    return simulate_serving(w, c, flat);
  };
  // All hits: after the first token's pass through the pipeline, one token every step.
  const ServingRun always = run_with(1.0);
  REQUIRE(always.requests.size() >= 20);
  for (const auto& r : always.requests) {
    REQUIRE(r.finished());
    CHECK(r.finish_s - r.first_token_s == Approx(0.01 * (kStages - 1 + 399)).epsilon(1e-9));
  }
  // Hit rate 0.9: a token takes 1 + 0.1 x 7 steps on average (paper 002's mechanism).
  const ServingRun some = run_with(0.9);
  double tokens = 0, span = 0;
  for (const auto& r : some.requests) {
    REQUIRE(r.finished());
    tokens += double(r.output_tokens - 1);
    span += r.finish_s - r.first_token_s - 0.01 * (kStages - 1);
  }
  CHECK(span / tokens == Approx(0.01 * (1 + 0.1 * (kStages - 1))).epsilon(0.03));
  CHECK(some.mean_tokens_per_step == Approx(1 / (1 + 0.1 * (kStages - 1))).epsilon(0.03));
  // Its steps are one scheduler's: virtual engines or chunked prefill with it are refused.
  ServingConfig bad = config(1, 10);
  bad.method = "specpipe-db";
  bad.specpipe.stages = kStages;
  bad.virtual_engines = 2;
  CHECK_THROWS_AS(simulate_serving(w, bad, flat), models::InputError);
  bad.virtual_engines = 1;
  bad.scheduler = "vllm-v1";
  bad.chunked_prefill_tokens = 2048;
  CHECK_THROWS_WITH(simulate_serving(w, bad, flat), Catch::Contains("V0's scheduler"));
}

TEST_CASE("serving: a scheduler added in one class runs under the same event loop (one request at a time)") {
  // Four requests at once, served one after another: no step batches two, and the run lasts the
  // sum of each request's prefill and its decode steps alone.
  const auto w = fixed_workload(100, 20);
  const auto costs = linear_costs(0.01, 0.001);
  ServingConfig c = config(1, 1);
  c.closed_batch = 4;
  c.scheduler = "test-one-at-a-time";
  const ServingRun run = simulate_serving(w, c, costs);
  REQUIRE(run.requests.size() == 4);
  CHECK(run.mean_decode_batch == Approx(1.0));
  CHECK(run.prefill_steps == 4);
  const double alone_s = costs.prefill_s(1, 100) + 19 * costs.decode_s(1, 1, 0, 0);
  CHECK(run.end_s == Approx(4 * alone_s).epsilon(1e-9));
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(run.requests[i].finished());
    CHECK(run.requests[i].first_token_s == Approx(double(i) * alone_s + costs.prefill_s(1, 100)).epsilon(1e-9));
  }
}

TEST_CASE("serving: the scheduler is looked up by name, and each refuses what it cannot run") {
  // The shipped ones, and the toy one this file registers.
  const auto names = serving_scheduler_names();
  CHECK(names == std::vector<std::string>{"test-one-at-a-time", "vllm-v0", "vllm-v1"});
  const auto w = fixed_workload(100, 20);
  ServingConfig c = config(1, 10);
  c.scheduler = "fifo-magic";
  CHECK_THROWS_WITH(simulate_serving(w, c, linear_costs(0.01, 0.001)),
                    Catch::Contains("scheduler 'fifo-magic' is not registered") && Catch::Contains("vllm-v0 (") &&
                        Catch::Contains("vllm-v1 ("));
  // V0 takes no token budget; V1 runs on one.
  c.scheduler = "vllm-v0";
  c.chunked_prefill_tokens = 512;
  CHECK_THROWS_WITH(simulate_serving(w, c, linear_costs(0.01, 0.001)), Catch::Contains("--scheduler vllm-v1"));
  c.scheduler = "vllm-v1";
  const ServingRun v1 = simulate_serving(w, c, linear_costs(0.01, 0.001));
  CHECK(v1.requests.size() > 0);
  for (const auto& r : v1.requests) CHECK(r.finished());
}

TEST_CASE("serving: a replayed acceptance trace gives each request its record's lengths and per-position yields") {
  const auto w = fixed_workload(100, 50);  // its lengths and chain are not used
  ServingConfig c = config(1, 1);
  c.method = "eagle3";
  c.k = 3;
  c.closed_batch = 6;
  // Two records: yields of 4 at every position (a step keeps min(4, k + 1) = 4), and of 1.
  ReplayedRequest fours, ones;
  fours.prompt_tokens = 300;
  fours.yields.assign(41, 4);
  ones.prompt_tokens = 200;
  ones.yields.assign(21, 1);
  c.replay = {fours, ones};
  const ServingRun run = simulate_serving(w, c, linear_costs(0.01, 0.0));
  REQUIRE(run.requests.size() == 6);
  for (std::size_t i = 0; i < run.requests.size(); ++i) {
    const auto& r = run.requests[i];
    const bool four = i % 2 == 0;  // request i is record i mod 2
    CHECK(r.prompt_tokens == (four ? 300 : 200));
    CHECK(r.output_tokens == (four ? 41 : 21));
    REQUIRE(r.finished());
  }
  // 3 requests keep 4 a step (40 tokens after the first: 10 steps), 3 keep 1 (20 steps): per
  // request and step, (3 x 10 x 4 + 3 x 20 x 1) / (3 x 10 + 3 x 20).
  CHECK(run.mean_tokens_per_step == Approx((3.0 * 10 * 4 + 3.0 * 20) / (3 * 10 + 3 * 20)));
  // A replay with an arrival trace's own lengths, or a tree, is refused.
  ServingConfig both = c;
  both.trace = {TracedRequest{}};
  CHECK_THROWS_AS(simulate_serving(w, both, linear_costs(0.01, 0.0)), models::InputError);
}
