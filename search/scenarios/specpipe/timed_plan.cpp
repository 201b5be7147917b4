// The timeline builder: a pipeline plan's steps as tasks on the system's device streams, host
// threads and links (the top of specpipe_timeline.hpp says what each task stands for), run on
// the system timeline and summarised.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/config_error.hpp"
#include "search/scenarios/specpipe/specpipe_timeline.hpp"
#include "sim/system/collectives.hpp"

namespace search::specpipe {

TimedPlan time_plan(const PipelinePlan& plan, const TimingSetup& setup, const StageTimer& timer) {
  const auto& sys = setup.system;
  const int m = timer.stages();
  if (plan.stages != m)
    throw models::InputError(fmt::format("specpipe: plan has {} stages, the system {}", plan.stages, m));
  TimedPlan out;
  // A run that writes no trace keeps no graph: it builds in this thread's scratch graph, whose
  // memory the next run refills (a grid of runs, paper 002 Fig. 10's 165 of about 36,000 tasks
  // each, otherwise spent a tenth of its time faulting in fresh pages).
  thread_local sim::TaskGraph scratch;
  sim::TaskGraph& g = setup.task_names ? out.graph : scratch;
  g.clear();
  g.set_named(setup.task_names);
  const bool named = setup.task_names;
  // Per step about: draft passes, a compute, a send, a prune and a token per stage.
  g.reserve_tasks(plan.steps.size() * (4 * std::size_t(m) + 4));
  std::vector<int> dev_res(sys.devices.size()), host_res(sys.devices.size());
  for (std::size_t i = 0; i < sys.devices.size(); ++i)
    dev_res[i] = g.add_resource({sys.devices[i].name, sim::ResourceKind::device_stream, sys.devices[i].name});
  for (std::size_t i = 0; i < sys.devices.size(); ++i)
    host_res[i] = g.add_resource({"host:" + sys.devices[i].name, sim::ResourceKind::host, sys.devices[i].name});
  const sim::LaneResources lanes = sim::add_lane_resources(g, sys);
  const int draft_dev = plan.draft_on_last_stage ? timer.device_of(m - 1) : sys.draft_device;
  const bool has_draft = plan.draft_on_last_stage ? setup.head.has_value() : setup.draft.has_value() && draft_dev >= 0;
  if (plan.draft_on_last_stage && !setup.head)
    throw models::InputError(fmt::format("{}: the plan drafts with an EAGLE head but none is set up", plan.method));
  auto hop_factor = [&](int i) {
    return std::size_t(i) < plan.hop_payload_factor.size() ? plan.hop_payload_factor[std::size_t(i)] : 1.0;
  };
  auto batch_of = [](const StepPlan& st, int i) { return st.batch.empty() ? 1 : std::max(1, st.batch[std::size_t(i)]); };
  const double emb_bytes = setup.target.hidden_size * setup.target.activation_bytes();
  const int last_dev = timer.device_of(m - 1);
  // Per-step task ids of the previous step.
  std::vector<int> prev_send(std::size_t(std::max(0, m - 1)), -1), prev_prune(std::size_t(m), -1);
  int prev_level_send = -1, prev_token_to_first = -1, prev_token_to_draft = -1;
  std::vector<int> emit_task;
  std::vector<std::vector<std::pair<int, int>>> request_emits(std::size_t(std::max(1, plan.requests)));  // (task, tokens)
  // Program order on each device: a resource serves its *ready* tasks first come first served,
  // so a later step's task that happens to be ready must not overtake an earlier one.
  std::vector<int> last_compute(std::size_t(m), -1);
  int last_draft = -1;
  // Device times by shape, looked up once per run: the cost layer's indexes take a lock and a
  // map search per call, and a 1000-token run asks ~10^4 times for a few dozen shapes.
  // Keyed by (a, b, c) packed into 16 + 24 + 24 bits; values outside those ranges skip the cache.
  auto cached = [](std::unordered_map<std::uint64_t, double>& cache, int a, int b, int c, auto&& seconds) {
    if (a < 0 || b < 0 || c < 0 || a >= (1 << 16) || b >= (1 << 24) || c >= (1 << 24)) return seconds();
    const std::uint64_t key = std::uint64_t(a) << 48 | std::uint64_t(b) << 24 | std::uint64_t(c);
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, seconds()).first;
    return it->second;
  };
  std::unordered_map<std::uint64_t, double> stage_cache, draft_cache;
  auto stage_seconds = [&](int i, int n, int b) {
    return cached(stage_cache, i, n, b, [&] { return timer.stage_s(i, n, b); });
  };
  auto draft_seconds = [&](int w, int b) {
    return cached(draft_cache, 0, w, b,
                  [&] { return plan.draft_on_last_stage ? timer.head_s(w, b) : timer.draft_s(w, b); });
  };
  // Compute time per resource, summed as the stage computes are added (the only "compute" tasks
  // here, in task order).
  std::vector<double> compute_busy(g.resources().size(), 0.0);
  // Per step: each stage's compute, the emitted token's arrival at each stage, each stage's
  // prune and hop (kept from step to step, not allocated per step).
  std::vector<int> comp(static_cast<std::size_t>(m)), token_at(comp.size()), prune(comp.size()),
      send(static_cast<std::size_t>(std::max(0, m - 1)));
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    const StepPlan& st = plan.steps[s];
    const std::string tag = named ? fmt::format("step {}", s) : std::string();
    // The draft's passes (after it learned the previous step's token), then, for a tree built at
    // the start of the step, its send to stage 0.
    int draft_done = -1;
    if (has_draft && !st.draft_passes.empty()) {
      int deps[2] = {prev_token_to_draft, last_draft}, dep_count = 2;
      for (int w : st.draft_passes) {
        const double busy = draft_seconds(w, st.draft_batch);
        draft_done = g.add_work(dev_res[std::size_t(draft_dev)],
                          !named               ? std::string()
                          : st.draft_batch > 1 ? fmt::format("{} draft {} x {} nodes", tag, st.draft_batch, w)
                                               : fmt::format("{} draft {} nodes", tag, w),
                          "draft", busy, {deps, deps + dep_count});
        deps[0] = draft_done;
        dep_count = 1;
      }
      last_draft = draft_done;
    }
    auto send_level = [&](std::vector<int> deps) {
      const double bytes = st.level_tokens * (kDraftNodeBytes + st.level_tokens / std::max(1, st.draft_batch) / 8.0);
      const int first_dev = timer.device_of(0);
      if (!has_draft || draft_dev == first_dev) return deps.empty() ? -1 : deps.front();
      deps.erase(std::remove(deps.begin(), deps.end(), -1), deps.end());
      return sim::add_routed_send(g, sys, lanes, draft_dev, first_dev, bytes, deps, named ? tag + " level -> stage 0" : std::string());
    };
    int level_now = -1;
    if (st.first == FirstInput::draft_now && st.level_tokens > 0) level_now = send_level({draft_done});
    // Stage computes.
    std::fill(comp.begin(), comp.end(), -1);
    for (int i = 0; i < m; ++i) {
      const int n = st.compute[std::size_t(i)];
      if (n <= 0) continue;
      int deps[5] = {prev_prune[std::size_t(i)], last_compute[std::size_t(i)]}, dep_count = 2;
      if (i == 0) {
        if (st.first == FirstInput::draft_previous) deps[dep_count++] = prev_level_send;
        if (st.first == FirstInput::draft_now) deps[dep_count++] = level_now;
        if (st.first == FirstInput::verified_token || st.first_needs_token) deps[dep_count++] = prev_token_to_first;
      } else {
        deps[dep_count++] = prev_send[std::size_t(i - 1)];
      }
      const auto& stg = sys.stages[std::size_t(i)];
      const int b = batch_of(st, i);
      double busy = stage_seconds(i, n, b);
      if (plan.ragged_batches) busy *= timer.ragged_factor(i, b);
      comp[std::size_t(i)] = g.add_work(dev_res[std::size_t(timer.device_of(i))],
                                  !named ? std::string()
                                  : b > 1 ? fmt::format("{} stage {} layers {}-{}: {} tokens of {} requests", tag, i,
                                                      stg.first_layer, stg.last_layer, n, b)
                                        : fmt::format("{} stage {} layers {}-{}: {} tokens", tag, i, stg.first_layer,
                                                      stg.last_layer, n),
                                  "compute", busy, {deps, deps + dep_count});
      last_compute[std::size_t(i)] = comp[std::size_t(i)];
      compute_busy[std::size_t(dev_res[std::size_t(timer.device_of(i))])] += busy;
    }
    // The emitted token goes to the devices that need it.
    std::fill(token_at.begin(), token_at.end(), -1);
    int token_to_draft = -1, token_to_first = -1;
    if (st.emitted > 0) {
      const int c_last = comp[std::size_t(m - 1)];
      emit_task.push_back(c_last);
      out.emit_tokens.push_back(st.emitted);
      if (st.emitted_by.empty()) request_emits[0].emplace_back(c_last, st.emitted);
      for (std::size_t e = 0; e < st.emitted_by.size(); ++e)
        request_emits[std::size_t(st.emitted_by[e])].emplace_back(
            c_last, e < st.emitted_each.size() ? st.emitted_each[e] : 1);
      const bool next_needs_first = s + 1 < plan.steps.size() && (plan.steps[s + 1].first == FirstInput::verified_token ||
                                                                  plan.steps[s + 1].first_needs_token);
      const double bytes = kVerifiedTokenBytes * st.emitted;
      for (int i = 0; i < m; ++i) {
        const int d = timer.device_of(i);
        if (!(st.prune || (i == 0 && next_needs_first))) continue;
        token_at[std::size_t(i)] = d == last_dev ? c_last
                                                 : sim::add_routed_send(g, sys, lanes, last_dev, d, bytes, {c_last},
                                                                        named ? fmt::format("{} token -> stage {}", tag, i)
                                                                              : std::string(),
                                                                        "token");
      }
      token_to_first = token_at[0];
      if (has_draft) {
        token_to_draft = draft_dev == last_dev ? c_last
                                               : sim::add_routed_send(g, sys, lanes, last_dev, draft_dev, bytes, {c_last},
                                                                      named ? tag + " token -> draft" : std::string(), "token");
      }
    }
    // Prune (host thread of each stage device) and the surviving embeddings on to the next stage.
    std::fill(prune.begin(), prune.end(), -1);
    std::fill(send.begin(), send.end(), -1);
    for (int i = 0; i < m; ++i) {
      if (st.prune && setup.prune_s > 0)
        prune[std::size_t(i)] = g.add_work(host_res[std::size_t(timer.device_of(i))],
                                     named ? fmt::format("{} prune stage {}", tag, i) : std::string(),
                                     "host", setup.prune_s, {comp[std::size_t(i)], token_at[std::size_t(i)]});
      if (i + 1 < m && st.send[std::size_t(i)] > 0) {
        const int n = st.send[std::size_t(i)];
        const double bytes = n * (emb_bytes * hop_factor(i) + double(n) / batch_of(st, i) / 8.0);
        const int deps[2] = {comp[std::size_t(i)], token_at[std::size_t(i)]};
        const int dep_count = token_at[std::size_t(i)] >= 0 ? 2 : 1;
        const std::string name =
            named ? fmt::format("{} embeddings stage {} -> {}: {} tokens", tag, i, i + 1, n) : std::string();
        const int from = timer.device_of(i), to = timer.device_of(i + 1);
        // Under a stack that copies activations itself through the host (accelerate's
        // synchronous `.to(device)`), the copy holds the sending device's host thread.
        if (const models::StagedDeviceCopy* copy = timer.staged_copy(from, to)) {
          sim::TimelineTask t;
          t.name = named ? name + " (staged through the host)" : std::string();
          t.category = "transfer";
          t.resource = host_res[std::size_t(from)];
          t.busy_s = copy->seconds(bytes, timer.host_of(from));
          t.bytes = bytes;
          send[std::size_t(i)] = g.add_task(std::move(t), {deps, deps + dep_count});
        } else {
          send[std::size_t(i)] = sim::add_routed_send(g, sys, lanes, from, to, bytes, {deps, deps + dep_count}, name);
        }
        out.max_hop_bytes = std::max(out.max_hop_bytes, g.task(send[std::size_t(i)]).bytes);
        if (timer.device_of(i) == timer.device_of(i + 1)) send[std::size_t(i)] = comp[std::size_t(i)];
      }
    }
    int level_next = -1;
    if (st.first != FirstInput::draft_now && st.level_tokens > 0)
      level_next = send_level({draft_done, st.level_waits_for_verify ? token_to_draft : -1});
    prev_send.swap(send);
    prev_prune.swap(prune);
    prev_level_send = level_next;
    prev_token_to_first = token_to_first;
    if (token_to_draft >= 0 || st.emitted > 0) prev_token_to_draft = token_to_draft;
  }
  out.run = sim::run_timeline(g);
  for (int t : emit_task) out.emit_s.push_back(out.run.end_s[std::size_t(t)]);
  if (plan.requests > 1) {
    std::vector<std::vector<std::pair<double, int>>> per(request_emits.size());
    for (std::size_t r = 0; r < request_emits.size(); ++r)
      for (const auto& [t, n] : request_emits[r]) per[r].emplace_back(out.run.end_s[std::size_t(t)], n);
    out.tbt = request_tbt_stats(per);
  } else {
    out.tbt = tbt_stats(out.emit_s, out.emit_tokens);
  }
  if (out.emit_s.size() >= 2) out.window_s = out.emit_s.back() - out.emit_s.front();
  {
    long long after_first = 0;
    for (std::size_t e = 1; e < out.emit_tokens.size(); ++e) after_first += out.emit_tokens[e];
    out.tokens_per_s_total = out.window_s > 0 ? double(after_first) / out.window_s : 0.0;
  }
  const double span = out.run.makespan_s > 0 ? out.run.makespan_s : 1.0;
  // The bytes moved, in one pass over the tasks.
  double bytes = 0;
  for (const auto& t : g.tasks()) bytes += t.bytes;
  for (int i = 0; i < m; ++i)
    out.stage_utilisation.push_back(compute_busy[std::size_t(dev_res[std::size_t(timer.device_of(i))])] / span);
  if (has_draft) out.draft_utilisation = out.run.resource_busy_s[std::size_t(dev_res[std::size_t(draft_dev)])] / span;
  out.link_bytes_per_step = plan.steps.empty() ? 0 : bytes / double(plan.steps.size());
  // Steps between the first and the last emission.
  long long first_step = -1, last_step = -1;
  for (std::size_t s = 0; s < plan.steps.size(); ++s)
    if (plan.steps[s].emitted > 0) {
      if (first_step < 0) first_step = (long long)s;
      last_step = (long long)s;
    }
  out.mean_step_s = last_step > first_step ? out.window_s / double(last_step - first_step) : 0.0;
  // The graph and its run are kept for a trace only: a grid of runs (paper 002 Fig. 10 holds 165
  // of about 36,000 tasks each) would otherwise hold hundreds of megabytes it never reads.
  if (!setup.task_names) out.run = sim::TimelineRun();
  return out;
}

}  // namespace search::specpipe
