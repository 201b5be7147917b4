#include "search/scenarios/serving/serving_simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <cmath>
#include <deque>
#include <fstream>
#include <functional>
#include <limits>
#include <map>

#include "models/config_error.hpp"
#include "models/input_file.hpp"
#include "sim/io/csv.hpp"

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

struct Request {
  RequestRecord rec;
  std::mt19937_64 rng;
  long long generated = 0;     // output tokens so far (the first comes with the prefill)
  long long blocks = 0;        // KV blocks held
  long long admitted_order = 0;  // when it was last admitted (preemption takes the latest)
  long long prefill_left = 0;  // chunked prefill: tokens of its (re)prefill still to compute
  long long swapped_blocks = 0;  // swap preemption: KV blocks it holds in the CPU swap space
  int yield = 1;               // the yield at its next output position (Markov chain state)
  int refill = 0;              // SpecPipe-DB: steps until its token reaches the last stage again
  int replay = -1;             // its record of ServingConfig::replay (-1: lengths and yields drawn)
  bool chain_started = false;
  long long context() const { return rec.prompt_tokens + generated; }
};

// One scheduler of the serving engine: vLLM V0 runs one per pipeline stage (a virtual engine), each
// with its own queue and its share of the KV cache, its steps in the pipeline beside the others'.
struct VirtualEngine {
  std::deque<std::size_t> waiting;
  std::vector<std::size_t> running;
  std::deque<std::size_t> swapped;  // swap preemption: out in the CPU swap space, first out first back
  std::vector<std::size_t> partial;  // chunked prefill: admitted, prefilled in part (admission order)
  std::size_t prefilling = 0;        // admitted, in their prefill step (neither waiting nor running)
  long long free_blocks = 0, swap_free_tokens = 0;
  // Its step in flight: when it ends and what its end does (the tokens kept, requests out).
  bool busy = false;
  double end_s = 0, idle_since_s = 0;
  std::function<void()> complete;
  // Requests it holds, in any state (vLLM's get_num_unfinished_seq_groups).
  std::size_t unfinished() const { return waiting.size() + running.size() + prefilling + partial.size() + swapped.size(); }
  bool has_work() const { return !waiting.empty() || !running.empty() || !partial.empty() || !swapped.empty(); }
};

long long blocks_for(long long tokens, int block_tokens) { return (tokens + block_tokens - 1) / block_tokens; }

}  // namespace

double gamma_unit_mean(std::mt19937_64& rng, double shape) {
  // Marsaglia and Tsang (2000) for shape >= 1; below, Gamma(shape) = Gamma(shape + 1) U^(1/shape).
  const bool boost = shape < 1;
  const double a = boost ? shape + 1 : shape;
  const double d = a - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  double x = 0;
  while (true) {
    // A standard normal by Box-Muller from two uniforms.
    const double u1 = 1 - uniform01(rng), u2 = uniform01(rng);
    const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
    const double v = std::pow(1 + c * z, 3);
    if (v <= 0) continue;
    const double u = 1 - uniform01(rng);
    if (std::log(u) < 0.5 * z * z + d - d * v + d * std::log(v)) {
      x = d * v;
      break;
    }
  }
  if (boost) x *= std::pow(1 - uniform01(rng), 1 / shape);
  return x / shape;  // mean 1
}

std::vector<TracedRequest> read_arrival_trace(const std::string& path) {
  std::ifstream in = models::open_input_file(path, "arrival trace");
  sim::CsvReader reader(in, path);
  sim::CsvRecord header;
  if (!reader.next(header)) throw models::InputError(fmt::format("{}: empty arrival trace (expected a header line)", path));
  auto column = [&](const std::string& name) {
    const auto it = std::find(header.cells.begin(), header.cells.end(), name);
    if (it == header.cells.end())
      throw models::InputError(fmt::format("{}: no column '{}' (expected arrival_s, prompt_tokens, output_tokens)", path, name));
    return std::size_t(it - header.cells.begin());
  };
  const std::size_t at = column("arrival_s"), prompt = column("prompt_tokens"), output = column("output_tokens");
  std::vector<TracedRequest> out;
  for (sim::CsvRecord r; reader.next(r);) {
    auto number = [&](std::size_t k, const char* name, double lo, double hi) {
      double v = 0;
      std::size_t used = 0;
      const std::string cell = k < r.cells.size() ? r.cells[k] : "";
      try {
        v = std::stod(cell, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != cell.size() || !(v >= lo && v <= hi))
        throw models::InputError(fmt::format("{}: line {}: {}: expected a number in [{:g}, {:g}], got '{}'", path, r.line,
                                             name, lo, hi, cell));
      return v;
    };
    TracedRequest q;
    q.arrival_s = number(at, "arrival_s", 0, 1e9);
    q.prompt_tokens = (long long)number(prompt, "prompt_tokens", 1, 1e7);
    q.output_tokens = (long long)number(output, "output_tokens", 1, 1e7);
    if (!out.empty() && q.arrival_s < out.back().arrival_s)
      throw models::InputError(fmt::format("{}: line {}: arrival_s {} is before the previous request's {}", path, r.line,
                                           q.arrival_s, out.back().arrival_s));
    out.push_back(q);
  }
  if (out.empty()) throw models::InputError(fmt::format("{}: the arrival trace holds no request", path));
  return out;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(p / 100 * double(values.size()));
  const std::size_t i = std::size_t(std::clamp(rank, 1.0, double(values.size()))) - 1;
  return values[i];
}

ServingRun simulate_serving(const ServingWorkload& workload, const ServingConfig& c, const ServingStepCosts& costs) {
  const YieldChain* chain = nullptr;
  const bool specpipe = c.specpipe.stages > 0;
  if (specpipe != (c.method == "specpipe-db"))
    throw std::logic_error("simulate_serving: method specpipe-db and ServingConfig::specpipe go together");
  if (!c.replay.empty() && (!c.trace.empty() || !c.tree_by_k.empty() || c.dispatch_per_batch || specpipe))
    throw models::InputError("serve: --acceptance-trace replays each request's lengths and chain yields: not with an "
                             "arrival trace's lengths, a tree, SpecPipe-DB or the per-batch dispatch (the chain's "
                             "statistics)");
  if (specpipe && (c.virtual_engines != 1 || c.chunked_prefill_tokens > 0 || !c.tree_by_k.empty()))
    throw models::InputError("serve: SpecPipe-DB packs every running request into each pipeline step with V0's "
                             "scheduler: one virtual engine, no chunked prefill, no draft tree per step");
  if (c.method != "none" && !specpipe) {
    const auto it = workload.acceptance.find(c.method);
    if (it == workload.acceptance.end())
      throw models::InputError(fmt::format("serve: workload {} has no measured acceptance for method '{}'", workload.name,
                                           c.method));
    chain = &it->second;
  }
  if (c.chunked_prefill_tokens > 0 && c.chunked_prefill_tokens < c.max_num_seqs)
    throw models::InputError(fmt::format("serve: --chunked-prefill-tokens {} is below --max-num-seqs {}: a step's budget "
                                         "holds at least one token per running sequence (vLLM refuses the same)",
                                         c.chunked_prefill_tokens, c.max_num_seqs));
  if (c.kv_capacity_tokens < c.block_tokens)
    throw models::InputError("serve: the deployment leaves no room for a KV cache (infeasible)");
  if (c.swap_preemption && c.chunked_prefill_tokens > 0)
    throw models::InputError("serve: swap preemption is vLLM V0's; V1's scheduler (chunked prefill) preempts by recompute "
                             "only: give one");
  if (c.swap_preemption && !costs.swap_s)
    throw models::InputError("serve: swap preemption needs the cost of copying KV to the CPU (a host link)");
  if (c.virtual_engines < 1) throw std::logic_error("simulate_serving: virtual_engines must be >= 1");
  // Each virtual engine's share of the cache (vllm/core/scheduler.py divides num_gpu_blocks by the
  // pipeline's size): the whole cache with one.
  const long long capacity_blocks = c.kv_capacity_tokens / c.block_tokens / c.virtual_engines;
  if (capacity_blocks < 1)
    throw models::InputError(fmt::format("serve: the KV cache ({} tokens) holds less than a block for each of {} virtual "
                                         "engines (infeasible)", c.kv_capacity_tokens, c.virtual_engines));

  // Arrivals: gamma gaps (exponential at CV 1) from the run's own stream, lengths from each
  // request's stream; or the trace's arrivals and lengths.
  std::vector<Request> reqs;
  if (!c.trace.empty()) {
    for (std::size_t id = 0; id < c.trace.size(); ++id) {
      if (c.max_requests > 0 && (long long)id >= c.max_requests) break;
      Request r;
      r.rng.seed(stream_seed(c.seed, id));
      r.rec.arrival_s = c.trace[id].arrival_s;
      r.rec.prompt_tokens = c.trace[id].prompt_tokens;
      r.rec.output_tokens = c.trace[id].output_tokens;
      reqs.push_back(std::move(r));
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
      Request r;
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
      reqs.push_back(std::move(r));
    }
  }

  ServingRun run;
  // vLLM V0's virtual engines (ServingConfig::virtual_engines): one scheduler each, with its own
  // queue, running set and share of the KV cache; the code below schedules the one `e` points at.
  std::vector<VirtualEngine> engines(std::size_t(c.virtual_engines));
  for (VirtualEngine& v : engines) {
    v.free_blocks = capacity_blocks;
    v.swap_free_tokens = c.swap_space_tokens / c.virtual_engines;
  }
  VirtualEngine* e = &engines.front();
  std::size_t next_arrival = 0;
  long long admissions = 0;
  double t = 0, in_system_integral = 0, batch_sum = 0, kept_sum = 0, k_sum = 0;
  long long kept_steps = 0;
  auto in_system = [&] {
    std::size_t n = 0;
    for (const VirtualEngine& v : engines) n += v.unfinished();
    return double(n);
  };
  // Requests are in the system from their arrival, though the scheduler sees them only at its next
  // step boundary (as vLLM's engine loop does): arrivals inside (t, end] count from their time.
  auto advance_to = [&](double end) {
    in_system_integral += in_system() * (end - t);
    for (std::size_t i = next_arrival; i < reqs.size() && reqs[i].rec.arrival_s <= end; ++i)
      in_system_integral += end - std::max(t, reqs[i].rec.arrival_s);
    t = end;
  };
  // KV tokens in use over every virtual engine's share, in whole blocks.
  auto kv_in_use = [&] {
    long long blocks = 0;
    for (const VirtualEngine& v : engines) blocks += capacity_blocks - v.free_blocks;
    return blocks * c.block_tokens;
  };
  auto finish = [&](Request& r) {
    r.rec.finish_s = t;
    e->free_blocks += r.blocks;
    r.blocks = 0;
  };
  // The yield of the request's next output position, then the chain moved on by `tokens`.
  auto next_yield = [&](Request& r) {
    // A replayed request's yield at its next output position (its first comes with the prefill).
    if (r.replay >= 0) {
      const auto& yields = c.replay[std::size_t(r.replay)].yields;
      return yields[std::size_t(std::clamp<long long>(r.generated - 1, 0, (long long)yields.size() - 1))];
    }
    if (!r.chain_started) {
      r.yield = draw_index(chain->first, uniform01(r.rng)) + 1;
      r.chain_started = true;
    }
    return r.yield;
  };
  auto move_chain = [&](Request& r, long long tokens) {
    if (r.replay >= 0) return;  // its yields are looked up by position
    for (long long i = 0; i < tokens; ++i)
      r.yield = draw_index(chain->transitions[std::size_t(r.yield - 1)], uniform01(r.rng)) + 1;
  };

  // The dispatch policy (ServingConfig::dispatch_per_batch): the k of 0..c.k with the most tokens
  // a second per sequence at this batch and context bucket, from the chain's stationary yields
  // (E[min(yield, k + 1)]) over the step's time; memoised per (batch, bucket).
  std::vector<double> kept_if;  // kept_if[k]: expected tokens kept per sequence with k drafted
  if (!c.tree_by_k.empty() && c.tree_by_k.size() != std::size_t(c.k) + 1)
    throw std::logic_error("simulate_serving: tree_by_k needs one step per k = 0..k");
  if (chain && c.tree_by_k.empty()) {
    kept_if.assign(std::size_t(c.k) + 1, 0.0);
    for (int k = 0; k <= c.k; ++k)
      for (std::size_t y = 0; y < chain->marginal.size(); ++y)
        kept_if[std::size_t(k)] += chain->marginal[y] * double(std::min<std::size_t>(y + 1, std::size_t(k) + 1));
  } else if (chain) {
    // A tree's expectation over the stationary yields as independent draws (the renewal of
    // eagle_tree_recovery.hpp): P(accepted >= j) = P(yield >= j + 1).
    std::vector<double> survival(chain->marginal.size(), 0.0);
    double tail = 0;
    for (std::size_t y = chain->marginal.size(); y-- > 1;) {
      tail += chain->marginal[y];
      survival[y - 1] = tail;
    }
    kept_if.assign(std::size_t(c.k) + 1, 0.0);
    for (int k = 0; k <= c.k; ++k)
      kept_if[std::size_t(k)] = renewal_tree_kept(survival, c.tree_by_k[std::size_t(k)].depth,
                                                  c.tree_by_k[std::size_t(k)].recovery);
  }
  std::map<std::pair<int, long long>, int> chosen_k;
  auto best_k = [&](int batch, long long bucket) {
    const auto key = std::make_pair(batch, bucket);
    if (auto it = chosen_k.find(key); it != chosen_k.end()) return it->second;
    int best = 0;
    double best_rate = 1 / costs.decode_s(batch, 1, bucket, 0);
    for (int k = 1; k <= c.k; ++k) {
      const double rate = kept_if[std::size_t(k)] / costs.decode_s(batch, k + 1, bucket, k);
      if (rate > best_rate) best = k, best_rate = rate;
    }
    return chosen_k[key] = best;
  };
  // The most recently admitted request of `v` (not empty): preemption takes it first.
  auto latest_admitted = [&](std::vector<std::size_t>& v) {
    return std::max_element(v.begin(), v.end(),
                            [&](std::size_t a, std::size_t b) { return reqs[a].admitted_order < reqs[b].admitted_order; });
  };
  // Preempts *it out of `from`, its blocks freed: by recompute (back to the front of the queue, to
  // prefill what it had again) or, given `swap_out` (V0's swap mode), copied to the CPU swap space
  // (the tokens copied added to *swap_out) or aborted when the swap space is full.
  auto preempt = [&](std::vector<std::size_t>& from, std::vector<std::size_t>::iterator it, long long* swap_out) {
    Request& r = reqs[*it];
    const long long held_tokens = r.blocks * c.block_tokens;
    ++r.rec.preemptions;
    ++run.preemptions;
    if (!swap_out) {
      e->waiting.push_front(*it);
    } else if (held_tokens <= e->swap_free_tokens) {
      // V0's swap: the blocks are copied to the CPU before the step; the request waits there.
      e->swap_free_tokens -= held_tokens;
      *swap_out += held_tokens;
      r.swapped_blocks = r.blocks;
      e->swapped.push_back(*it);
      ++run.swap_outs;
    } else {
      // vllm/core/scheduler.py _swap_out: "Aborted due to the lack of CPU swap space".
      r.rec.dropped = fmt::format("aborted: preempted with the CPU swap space full ({} of {} tokens free, {} needed), "
                                  "as vLLM V0 aborts it", e->swap_free_tokens, c.swap_space_tokens / c.virtual_engines, held_tokens);
    }
    e->free_blocks += r.blocks;
    r.blocks = 0;
    r.prefill_left = 0;
    from.erase(it);
  };
  // Before a decode step: every running request reserves the blocks its verified tokens may fill,
  // the latest admitted (running or, with chunked prefill, prefilling) giving way while they do
  // not fit; then the tokens each verifies.
  struct DecodePlan {
    bool speculate = false;
    int k = 0;  // draft tokens per sequence this step (0: no speculation)
    int verify = 1, batch = 0, tokens_per_seq = 1;
    long long bucket = 0, verified = 0;
    long long swap_out_tokens = 0;  // KV copied to the swap space before the step (swap preemption)
    std::vector<int> tokens_verified;
  };
  // `k_cap`: the most draft tokens the step may take (chunked prefill's budget; -1: no cap).
  auto plan_decode = [&](int k_cap) {
    DecodePlan d;
    // The dispatch policies see the batch that runs: chosen again after a preemption shrinks it
    // (a larger k may then preempt again; the batch only shrinks, so this ends).
    auto choose = [&] {
      if (specpipe) {
        // Every request's levels in flight, re-reserved each step (their slots beside its context).
        d.speculate = true;
        d.k = c.k;
        d.verify = int(c.specpipe.tree_tokens) + 1;
        return;
      }
      d.speculate = chain && (c.sd_off_above_batch <= 0 || int(e->running.size()) <= c.sd_off_above_batch);
      d.k = d.speculate ? c.k : 0;
      if (d.speculate && c.dispatch_per_batch && !e->running.empty()) {
        long long context_sum = 0;
        for (std::size_t i : e->running) context_sum += reqs[i].context();
        const long long mean_context = (context_sum + (long long)e->running.size() - 1) / (long long)e->running.size();
        d.k = best_k(int(e->running.size()), (mean_context + c.context_bucket - 1) / c.context_bucket * c.context_bucket);
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
      for (std::size_t i : e->running) {
        const Request& r = reqs[i];
        need += std::max(0LL, blocks_for(r.context() + d.verify, c.block_tokens) - r.blocks);
      }
      return need - e->free_blocks;
    };
    for (bool again = true; again;) {
      while (e->running.size() + e->partial.size() > 1 && shortfall() > 0) {
        const auto in_running = latest_admitted(e->running);
        const auto in_partial = e->partial.empty() ? e->partial.end() : latest_admitted(e->partial);
        const bool from_partial = in_partial != e->partial.end() &&
                                  (e->running.size() <= 1 || reqs[*in_partial].admitted_order > reqs[*in_running].admitted_order);
        if (from_partial) preempt(e->partial, in_partial, nullptr);
        else preempt(e->running, in_running, c.swap_preemption ? &d.swap_out_tokens : nullptr);
      }
      const int k_before = d.k;
      const bool speculate_before = d.speculate;
      choose();
      again = d.k != k_before || d.speculate != speculate_before;
    }
    long long context_sum = 0;
    d.tokens_verified.assign(e->running.size(), 1);
    for (std::size_t j = 0; j < e->running.size(); ++j) {
      Request& r = reqs[e->running[j]];
      const long long grow = blocks_for(r.context() + d.verify, c.block_tokens) - r.blocks;
      if (grow > 0) {
        const long long take = std::min(grow, e->free_blocks);  // a lone request beyond the cache: what is left
        e->free_blocks -= take;
        r.blocks += take;
      }
      context_sum += r.context();
      // n-gram: a position of yield 1 found no match with the source's probability: one token.
      if (specpipe) d.tokens_verified[j] = c.specpipe.level_tokens;
      else if (d.speculate && !(c.method == "ngram" && next_yield(r) == 1 && uniform01(r.rng) >= chain->match_probability))
        d.tokens_verified[j] = d.verify;
      d.verified += d.tokens_verified[j];
    }
    run.peak_kv_tokens = std::max(run.peak_kv_tokens, kv_in_use());
    d.batch = int(e->running.size());
    if (d.batch > 0) {
      const long long mean_context = (context_sum + d.batch - 1) / d.batch;
      d.bucket = (mean_context + c.context_bucket - 1) / c.context_bucket * c.context_bucket;
      d.tokens_per_seq = int((d.verified + d.batch - 1) / d.batch);
    }
    return d;
  };
  // After it: the tokens each kept, the rejected drafts' blocks back, finished requests out.
  auto retire_decode = [&](const DecodePlan& d) {
    ++run.decode_steps;
    run.speculative_steps += d.speculate ? 1 : 0;
    k_sum += d.k;
    batch_sum += d.batch;
    std::vector<std::size_t> still;
    for (std::size_t j = 0; j < e->running.size(); ++j) {
      Request& r = reqs[e->running[j]];
      long long kept = 1;
      const long long left = r.rec.output_tokens - r.generated;
      if (specpipe) {
        // Its verified level at the last stage emits a token unless the request is refilling;
        // a miss flushes its tree (SpecPipe-DB, PipelinedTrees).
        if (r.refill > 0) {
          --r.refill;
          kept = 0;
        } else if (!(uniform01(r.rng) < c.specpipe.hit)) {
          r.refill = c.specpipe.stages - 1;
        }
        kept = std::min(kept, left);
      } else if (d.tokens_verified[j] > 1 && !c.tree_by_k.empty()) {
        // A tree: the chain's accepted run; past a miss within the depth, the recovered token
        // and a fresh run from the chain's state after it (eagle_tree_recovery.hpp).
        const TreeStep& tree = c.tree_by_k[std::size_t(d.k)];
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
        if (chain && d.speculate) move_chain(r, kept);
      }
      r.generated += kept;
      kept_sum += double(kept);
      ++kept_steps;
      // Blocks beyond what the kept tokens fill go back (the rejected drafts' slots).
      const long long hold = blocks_for(r.context(), c.block_tokens);
      if (r.blocks > hold) {
        e->free_blocks += r.blocks - hold;
        r.blocks = hold;
      }
      if (r.generated >= r.rec.output_tokens) finish(r);
      else still.push_back(e->running[j]);
    }
    e->running = std::move(still);
  };
  // Admission of the queue's head: false when it must wait (the batch limit, blocks, the step's
  // token room); a prompt larger than the whole cache is dropped with that reason and the next one
  // tried. `first_chunk` (chunked prefill): the tokens of its first chunk, whose blocks are all it
  // needs now (vLLM V1 allocates a request's slots chunk by chunk); -1: the whole prompt (V0).
  auto admit_head = [&](int in_flight, long long token_room, long long first_chunk = -1) {
    while (!e->waiting.empty()) {
      Request& r = reqs[e->waiting.front()];
      const long long tokens = r.context();  // a preempted request prefills what it had
      const long long whole = blocks_for(tokens + 1, c.block_tokens);
      const long long need =
          first_chunk < 0 || first_chunk >= tokens ? whole : blocks_for(first_chunk, c.block_tokens);
      if (whole > capacity_blocks) {
        r.rec.dropped = c.virtual_engines == 1
                            ? fmt::format("its prompt ({} tokens) exceeds the whole KV cache ({} tokens)", tokens,
                                          capacity_blocks * c.block_tokens)
                            : fmt::format("its prompt ({} tokens) exceeds its virtual engine's share of the KV cache "
                                          "({} tokens)", tokens, capacity_blocks * c.block_tokens);
        e->waiting.pop_front();
        continue;
      }
      // token_room: the prompt tokens the step may still take (-1: any)
      if (in_flight >= c.max_num_seqs || need > e->free_blocks || (token_room >= 0 && tokens > token_room)) return false;
      e->free_blocks -= need;
      r.blocks = need;
      r.admitted_order = ++admissions;
      return true;
    }
    return false;
  };
  // Nothing admissible and nothing running: the queue waits for memory that never frees.
  auto drop_waiting = [&] {
    for (std::size_t i : e->waiting)
      if (reqs[i].rec.dropped.empty()) reqs[i].rec.dropped = "never admitted";
    e->waiting.clear();
  };
  // A request whose prefill completed: its first token (the first time), then decoding or done.
  auto prefilled = [&](std::size_t i) {
    Request& r = reqs[i];
    if (r.rec.first_token_s < 0) {
      r.rec.first_token_s = t;
      r.generated = 1;
    }
    // SpecPipe-DB: its last token passes every stage before its tree's first level is verified.
    if (specpipe) r.refill = c.specpipe.stages - 1;
    if (r.generated >= r.rec.output_tokens) finish(r);
    else e->running.push_back(i);
  };

  // The pipeline's entry: a step enters once the step before it has left the busiest stage (its
  // period); one virtual engine's steps follow each other, each after the last one's end.
  double entry_free_s = 0;
  // `end_s`: when the step's tokens are out (the caller sums t and its parts in the order they
  // run); `period_s`: its hold on the entry, at most the whole step.
  auto begin_step = [&](double end_s, double period_s, std::function<void()> done) {
    e->busy = true;
    e->end_s = end_s;
    e->complete = std::move(done);
    entry_free_s = std::min(t + period_s, end_s);
  };
  auto engine_index = [&](const VirtualEngine* v) { return int(v - engines.data()); };
  auto queued_requests = [&] {
    std::size_t n = 0;
    for (const VirtualEngine& v : engines) n += v.waiting.size();
    return int(n);
  };
  // A step's hold on the pipeline's entry: its period where the costs give one, else its latency.
  auto decode_period_s = [&](int batch, int tokens, long long context, int draft_tokens, double latency_s) {
    return costs.decode_period_s ? costs.decode_period_s(batch, tokens, context, draft_tokens) : latency_s;
  };
  auto prefill_period_s = [&](int requests, long long tokens, double latency_s) {
    return costs.prefill_period_s ? costs.prefill_period_s(requests, tokens) : latency_s;
  };
  // Schedules and starts the next step of virtual engine *e at t; false when it started none (it
  // dropped what can never be admitted, or a prefill in progress gave way): the caller looks again.
  auto start_step = [&]() -> bool {
    VirtualEngine* const self = e;
    if (c.chunked_prefill_tokens > 0) {
      // vLLM V1's scheduler (vllm/v1/core/sched/scheduler.py): one budget of tokens a step, spent
      // on the running requests' decode tokens first, then on the prefill in progress, then on
      // new admissions, first come first served, each prefilling what the budget leaves (its
      // prompt in chunks); the decodes and the chunks share the step.
      long long budget = c.chunked_prefill_tokens;
      DecodePlan d;
      if (!e->running.empty()) {
        // The decodes take the budget first, at most all of it: as vLLM V1 truncates a request's
        // speculative tokens to what the budget leaves, k is cut to fit (the budget holds one
        // token per running sequence: it is at least max_num_seqs).
        d = plan_decode(int(std::max<long long>(0, c.chunked_prefill_tokens / (long long)e->running.size() - 1)));
        budget = std::max(0LL, budget - d.verified);
      }
      std::vector<std::pair<std::size_t, long long>> chunks;  // (request, tokens this step)
      long long chunk_tokens = 0;
      // A chunk takes the budget's tokens and the KV blocks they fill (the last chunk one slot more,
      // for the first generated token), cut to the blocks free: V1 allocates slots per chunk.
      auto take_chunk = [&](std::size_t i) {
        Request& r = reqs[i];
        const long long computed = r.context() - r.prefill_left;
        long long take = std::min(r.prefill_left, budget);
        auto blocks_after = [&](long long tokens) {
          return blocks_for(computed + tokens + (tokens == r.prefill_left ? 1 : 0), c.block_tokens);
        };
        while (take > 0 && blocks_after(take) - r.blocks > e->free_blocks)
          take = std::min(take - 1, (r.blocks + e->free_blocks) * c.block_tokens - computed);
        if (take <= 0) return;
        const long long grow = std::max(0LL, blocks_after(take) - r.blocks);
        e->free_blocks -= grow;
        r.blocks += grow;
        chunks.emplace_back(i, take);
        chunk_tokens += take;
        budget -= take;
      };
      for (std::size_t i : e->partial) {
        if (budget <= 0) break;
        take_chunk(i);
      }
      while (budget > 0 && admit_head(int(e->running.size() + e->partial.size()), -1, budget)) {
        const std::size_t i = e->waiting.front();
        e->waiting.pop_front();
        reqs[i].prefill_left = reqs[i].context();
        e->partial.push_back(i);
        take_chunk(i);
      }
      if (e->running.empty() && chunks.empty()) {
        if (e->partial.size() > 1) {
          // Prefills in progress hold the cache between them and none can take a chunk: the
          // latest admitted gives its blocks back and waits again (as V1 preempts the lowest
          // priority), so the earlier ones finish.
          preempt(e->partial, latest_admitted(e->partial), nullptr);
          return false;
        }
        drop_waiting();
        return false;
      }
      run.peak_kv_tokens = std::max(run.peak_kv_tokens, kv_in_use());
      const double step_start = t;
      const int queued = queued_requests();
      // A mixed step is one forward: its decode step plus what the chunks' tokens add to a forward
      // of the decode's tokens (the weights are read once; the linear layers see every token).
      const long long mean_chunk =
          chunks.empty() ? 0 : (chunk_tokens + (long long)chunks.size() - 1) / (long long)chunks.size();
      double step_s = 0, period_s = 0;
      if (d.batch > 0) {
        step_s = costs.decode_s(d.batch, d.tokens_per_seq, d.bucket, d.k);
        period_s = decode_period_s(d.batch, d.tokens_per_seq, d.bucket, d.k, step_s);
        if (chunk_tokens > 0) {
          const double before = costs.prefill_s(1, d.verified), after = costs.prefill_s(1, d.verified + chunk_tokens);
          step_s += std::max(0.0, after - before);
          period_s += std::max(0.0, prefill_period_s(1, d.verified + chunk_tokens, after) -
                                        prefill_period_s(1, d.verified, before));
        }
      } else {
        step_s = costs.prefill_s(int(chunks.size()), mean_chunk);
        period_s = prefill_period_s(int(chunks.size()), mean_chunk, step_s);
      }
      begin_step(t + step_s, period_s, [&, self, d, chunks, step_start, queued, mean_chunk] {
        if (d.batch > 0) retire_decode(d);
        else if (!chunks.empty()) ++run.prefill_steps;
        for (const auto& [i, take] : chunks) reqs[i].prefill_left -= take;
        std::vector<std::size_t> still;
        for (std::size_t i : self->partial)
          if (reqs[i].prefill_left > 0) still.push_back(i);
          else prefilled(i);
        self->partial = std::move(still);
        if (step_start < c.record_steps_until_s)
          run.steps.push_back({step_start, t, d.batch == 0, d.batch > 0 ? d.batch : int(chunks.size()),
                               d.batch > 0 ? d.tokens_per_seq : int(mean_chunk), kv_in_use(), queued,
                               engine_index(self)});
      });
      return true;
    }
    // Prefill whatever can be admitted, first come first served (vLLM V0 admits no prompt while
    // a request is swapped out: vllm/core/scheduler.py _schedule_default).
    std::vector<std::size_t> admitted;
    long long prefill_tokens = 0;
    while (!e->waiting.empty() && e->swapped.empty()) {
      // A prefill step takes prompts up to max_batched_tokens (the first one whatever its size).
      if (!admit_head(int(e->running.size() + admitted.size()),
                      admitted.empty() ? -1 : std::max(0LL, c.max_batched_tokens - prefill_tokens)))
        break;
      prefill_tokens += reqs[e->waiting.front()].context();
      admitted.push_back(e->waiting.front());
      e->waiting.pop_front();
    }
    if (!admitted.empty()) {
      const long long mean_tokens = (prefill_tokens + (long long)admitted.size() - 1) / (long long)admitted.size();
      e->prefilling = admitted.size();
      run.peak_kv_tokens = std::max(run.peak_kv_tokens, kv_in_use());  // their blocks, from admission on
      const double start = t;
      const int queued = queued_requests();
      const double step_s = costs.prefill_s(int(admitted.size()), mean_tokens);
      begin_step(t + step_s, prefill_period_s(int(admitted.size()), mean_tokens, step_s),
                 [&, self, admitted, start, queued, mean_tokens] {
                   self->prefilling = 0;
                   if (start < c.record_steps_until_s)
                     run.steps.push_back({start, t, true, int(admitted.size()), int(mean_tokens), kv_in_use(), queued,
                                          engine_index(self)});
                   ++run.prefill_steps;
                   for (std::size_t i : admitted) prefilled(i);
                   run.peak_kv_tokens = std::max(run.peak_kv_tokens, kv_in_use());
                 });
      return true;
    }
    // Swapped-out requests come back first, copied in, while the cache holds them beside the
    // running requests' next tokens (the step's most: k + 1 each); the first one whatever is left
    // when nothing runs.
    long long swap_in_tokens = 0;
    if (!e->swapped.empty()) {
      const int step_tokens = chain ? c.k + 1 : 1;
      long long reserved = 0;
      for (std::size_t i : e->running)
        reserved += std::max(0LL, blocks_for(reqs[i].context() + step_tokens, c.block_tokens) - reqs[i].blocks);
      while (!e->swapped.empty() && int(e->running.size()) < c.max_num_seqs) {
        Request& r = reqs[e->swapped.front()];
        const long long need = std::max(r.swapped_blocks, blocks_for(r.context() + step_tokens, c.block_tokens));
        if (!e->running.empty() && need + reserved > e->free_blocks) break;
        const long long take = std::min(r.swapped_blocks, e->free_blocks);
        e->free_blocks -= take;
        r.blocks = take;
        reserved += need - r.swapped_blocks;
        e->swap_free_tokens += r.swapped_blocks * c.block_tokens;
        swap_in_tokens += r.swapped_blocks * c.block_tokens;
        r.swapped_blocks = 0;
        e->running.push_back(e->swapped.front());
        e->swapped.pop_front();
        ++run.swap_ins;
      }
    }
    if (e->running.empty()) {
      drop_waiting();
      return false;
    }
    // A decode step of every running request, speculating unless the policy turns it off; the
    // swap copies (in, then out) before its forward, as V0's worker runs them.
    const DecodePlan d = plan_decode(-1);
    const double step_start = t;
    const int queued = queued_requests();
    double swap_s = 0;
    if (swap_in_tokens > 0) swap_s += costs.swap_s(swap_in_tokens);
    if (d.swap_out_tokens > 0) swap_s += costs.swap_s(d.swap_out_tokens);
    run.swap_s += swap_s;
    const double forward_s = costs.decode_s(d.batch, d.tokens_per_seq, d.bucket, d.k);
    begin_step(t + swap_s + forward_s, swap_s + decode_period_s(d.batch, d.tokens_per_seq, d.bucket, d.k, forward_s),
               [&, self, d, step_start, queued] {
                 retire_decode(d);
                 if (step_start < c.record_steps_until_s)
                   run.steps.push_back({step_start, t, false, d.batch, d.tokens_per_seq, kv_in_use(), queued,
                                        engine_index(self)});
               });
    return true;
  };

  while (true) {
    // Arrivals so far, each to the virtual engine holding the fewest requests, the first such
    // (vLLM's LLMEngine.add_request); with one engine, its queue.
    while (next_arrival < reqs.size() && reqs[next_arrival].rec.arrival_s <= t) {
      VirtualEngine* least = &engines.front();
      for (VirtualEngine& v : engines)
        if (v.unfinished() < least->unfinished()) least = &v;
      least->waiting.push_back(next_arrival++);
    }
    // Steps start while the pipeline's entry is free, the virtual engine idle longest first.
    while (entry_free_s <= t) {
      VirtualEngine* next = nullptr;
      for (VirtualEngine& v : engines)
        if (!v.busy && v.has_work() && (!next || v.idle_since_s < next->idle_since_s)) next = &v;
      if (!next) break;
      e = next;
      start_step();  // none started: it dropped or preempted, so look again
    }
    // The next event: a step's end, the entry freeing for an engine with work, or (for an engine
    // with none) the next arrival; a busy engine's scheduler sees arrivals when its step ends.
    double next_s = std::numeric_limits<double>::infinity();
    bool ready = false, idle = false;
    for (const VirtualEngine& v : engines) {
      if (v.busy) next_s = std::min(next_s, v.end_s);
      else if (v.has_work()) ready = true;
      else idle = true;
    }
    if (ready) next_s = std::min(next_s, entry_free_s);
    if (idle && next_arrival < reqs.size()) next_s = std::min(next_s, reqs[next_arrival].rec.arrival_s);
    if (next_s == std::numeric_limits<double>::infinity()) break;
    advance_to(next_s);
    // The steps that end now, in the order they end (the lower index first on a tie).
    while (true) {
      VirtualEngine* done = nullptr;
      for (VirtualEngine& v : engines)
        if (v.busy && v.end_s <= t && (!done || v.end_s < done->end_s)) done = &v;
      if (!done) break;
      e = done;
      done->busy = false;
      done->idle_since_s = t;
      const std::function<void()> complete = std::move(done->complete);
      complete();
    }
  }
  // Steps end out of their start order when virtual engines overlap: the timeline in start order.
  std::stable_sort(run.steps.begin(), run.steps.end(),
                   [](const StepRecord& a, const StepRecord& b) { return a.start_s < b.start_s; });
  run.end_s = t;
  run.mean_in_system = t > 0 ? in_system_integral / t : 0;
  run.mean_decode_batch = run.decode_steps ? batch_sum / double(run.decode_steps) : 0;
  run.mean_tokens_per_step = kept_steps ? kept_sum / double(kept_steps) : 0;
  run.mean_k = run.decode_steps ? k_sum / double(run.decode_steps) : 0;
  for (auto& r : reqs) run.requests.push_back(r.rec);
  return run;
}

}  // namespace search::serving
