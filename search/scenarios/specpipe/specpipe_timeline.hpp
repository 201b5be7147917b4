#pragma once
// A pipeline plan (pipeline_plan.hpp) timed on the system timeline (sim/system/timeline): per
// step every stage's compute task on its device (seconds from the device engine on the stage
// graph: the stage's layers, `tokens` = the tokens it holds, the LM head on the last stage, as
// sim/system/system_step does), the emitted token sent from the last stage to every device that
// prunes and to the draft, a prune task per stage on the device's host thread (the cost is an
// input: paper 002 §4.2 measured ~5 ms), surviving embeddings sent stage to stage over the
// system's links (asynchronously with the prune, as the paper's implementation overlaps them),
// and the draft's passes on its device with the new level sent to stage 0. Times between tokens
// are read off the last stage's compute ends.
//
// Header-only on purpose: the search library does not link the sim library (CMakeLists.txt), so
// only binaries that link sim (the specdse CLI, tests/experiments) include this file.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/algorithm_spec.hpp"
#include "models/config_error.hpp"
#include "models/drafts/draft_builder.hpp"
#include "models/engine_registry.hpp"
#include "models/operator_graph.hpp"
#include "models/system_spec.hpp"
#include "search/scenarios/specpipe/expected_tbt.hpp"
#include "search/scenarios/specpipe/pipeline_plan.hpp"
#include "sim/system/collectives.hpp"
#include "sim/system/routes.hpp"
#include "sim/system/memory_fit.hpp"
#include "sim/system/system_step.hpp"
#include "sim/system/timeline.hpp"

namespace search::specpipe {

// Bytes per token id the last stage broadcasts (int32), and per drafted node sent to stage 0
// (token id and position, int32 each; the node's tree-mask row adds one bit per node of its
// level), as sim/system/system_step counts them.
constexpr double kVerifiedTokenBytes = 4.0;
constexpr double kDraftNodeBytes = 8.0;

struct TimingSetup {
  models::SystemSpec system;         // placement validated for `target`
  models::ModelSpec target;
  std::optional<models::ModelSpec> draft;
  std::string engine = "roofline";
  long long context = 1024;          // tokens in the KV cache (held fixed over the run)
  double prune_s = 5e-3;             // per step and stage; paper 002 §4.2: "pruning takes about ~5 ms"
  // An EAGLE head drafting on the last stage's device (plans with draft_on_last_stage).
  std::optional<models::AlgorithmSpec> head;
  // Whether the timed graphs' tasks carry names (sim::TaskGraph::set_named): only a trace
  // needs them, and formatting them costs about as much as the timeline run.
  bool task_names = true;
};

// Memoised stage and draft times from the device engines.
class StageTimer {
 public:
  explicit StageTimer(const TimingSetup& s) : s_(s) {
    for (std::size_t k = 0; k < s.system.stages.size(); ++k)
      if (s.system.stages[k].devices.size() != 1)
        throw models::InputError(fmt::format("{}: placement.target stage {}: tensor-parallel stages are not modelled by "
                                             "the SpecPipe scenario (one device per stage)",
                                             s.system.source_file, k));
  }
  int stages() const { return int(s_.system.stages.size()); }
  int device_of(int stage) const { return s_.system.stages[std::size_t(stage)].devices.front(); }
  // Compute time of `stage` over `tokens` tokens of `batch` sequences (0 tokens: 0); each
  // sequence holds ceil(tokens / batch) of them against its own context.
  double stage_s(int stage, int tokens, int batch = 1) const {
    if (tokens <= 0) return 0.0;
    batch = std::max(1, std::min(batch, tokens));
    auto key = std::make_tuple(stage, tokens, batch);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    const auto& st = s_.system.stages[std::size_t(stage)];
    const bool last = stage + 1 == stages();
    models::StepShape sh;
    sh.tokens = (tokens + batch - 1) / batch;
    sh.batch = batch;
    sh.context = s_.context;
    sh.mask = sh.tokens > 1 ? models::MaskKind::tree : models::MaskKind::causal;
    sh.include_lm_head = last && s_.system.devices[std::size_t(device_of(stage))].hardware.verify_includes_lm_head;
    models::StepGraph g = models::build_verify_graph(s_.target, sh);
    if (!last) g.tail_ops.clear();
    g.layer_count = st.last_layer - st.first_layer + 1;
    const double t = engine(device_of(stage)).step(g).seconds;
    memo_[key] = t;
    return t;
  }
  // One pass of the draft model on the draft device over `tokens` tokens per sequence.
  double draft_s(int tokens, int batch = 1) const {
    if (!s_.draft || tokens <= 0) return 0.0;
    auto key = std::make_pair(tokens, batch);
    auto it = draft_memo_.find(key);
    if (it != draft_memo_.end()) return it->second;
    models::StepShape sh;
    sh.tokens = tokens;
    sh.batch = batch;
    sh.context = s_.context;
    sh.mask = tokens > 1 ? models::MaskKind::tree : models::MaskKind::causal;
    sh.include_lm_head = true;
    const double t = engine(s_.system.draft_device).step(models::build_verify_graph(*s_.draft, sh)).seconds;
    draft_memo_[key] = t;
    return t;
  }
  // One pass of the EAGLE head on the last stage's device over `width` tokens per sequence.
  double head_s(int width, int batch = 1) const {
    if (!s_.head || width <= 0) return 0.0;
    auto key = std::make_pair(width, batch);
    auto it = head_memo_.find(key);
    if (it != head_memo_.end()) return it->second;
    const auto& builder = models::draft_builder(s_.head->draft.kind, s_.head->source_file);
    const double t = engine(device_of(stages() - 1))
                         .step(builder.pass_graph(*s_.head, s_.target, width, s_.context, batch))
                         .seconds;
    head_memo_[key] = t;
    return t;
  }
  // Link time from device a to b for `bytes` along the system's route (sim/system/routes.hpp,
  // the path sim::add_routed_send takes); 0 on the same device.
  double hop_s(int a, int b, double bytes) const { return sim::route_transfer_s(s_.system, a, b, bytes); }
  const models::LatencyEngine& engine(int device) const {
    auto& e = engines_[device];
    if (!e) e = models::make_engine(s_.engine, s_.system.devices[std::size_t(device)].hardware);
    return *e;
  }

 private:
  const TimingSetup& s_;
  mutable std::map<int, std::unique_ptr<models::LatencyEngine>> engines_;
  mutable std::map<std::tuple<int, int, int>, double> memo_;
  mutable std::map<std::pair<int, int>, double> draft_memo_, head_memo_;
};

struct TbtStats {
  double mean_s = 0, p50_s = 0, p90_s = 0, p99_s = 0;
  double tokens_per_s = 0;
  long long samples = 0;
};

struct TimedPlan {
  sim::TaskGraph graph;
  sim::TimelineRun run;
  std::vector<double> emit_s;          // per emission event: the last stage's compute end
  std::vector<int> emit_tokens;        // tokens per emission event
  TbtStats tbt;                        // per request (several requests: pooled over them)
  double tokens_per_s_total = 0;       // all requests' tokens per second between first and last emission
  std::vector<double> stage_utilisation;  // compute busy / window, per stage
  double window_s = 0;                 // first to last emission
  double mean_step_s = 0;              // window / steps in the window
  double link_bytes_per_step = 0;      // all lanes, mean over the run's steps
  double max_hop_bytes = 0;            // largest single stage-to-stage transfer
  double draft_utilisation = 0;
};

// Nearest-rank percentile of sorted samples.
inline double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const std::size_t r = std::size_t(std::ceil(q * double(sorted.size())));
  return sorted[std::min(sorted.size() - 1, r == 0 ? 0 : r - 1)];
}

// Mean, percentiles and rate of TBT samples (seconds).
inline TbtStats stats_of(std::vector<double> samples) {
  TbtStats s;
  if (samples.empty()) return s;
  double sum = 0;
  for (double v : samples) sum += v;
  s.samples = (long long)samples.size();
  s.mean_s = sum / double(samples.size());
  std::sort(samples.begin(), samples.end());
  s.p50_s = percentile(samples, 0.50);
  s.p90_s = percentile(samples, 0.90);
  s.p99_s = percentile(samples, 0.99);
  s.tokens_per_s = s.mean_s > 0 ? 1.0 / s.mean_s : 0.0;
  return s;
}

// TBT samples: per emission event after the first, the gap to the previous event spread evenly
// over the tokens it emits (one sample per token; a tree baseline emits several at once).
inline TbtStats tbt_stats(const std::vector<double>& emit_s, const std::vector<int>& emit_tokens) {
  std::vector<double> samples;
  for (std::size_t e = 1; e < emit_s.size(); ++e)
    for (int t = 0; t < emit_tokens[e]; ++t) samples.push_back((emit_s[e] - emit_s[e - 1]) / emit_tokens[e]);
  return stats_of(std::move(samples));
}

// TBT samples of several requests: per request, the gap between consecutive emissions spread
// over the tokens it emitted at the later one; pooled over requests.
inline TbtStats request_tbt_stats(const std::vector<std::vector<std::pair<double, int>>>& per_request) {
  std::vector<double> samples;
  for (const auto& ev : per_request)
    for (std::size_t e = 1; e < ev.size(); ++e)
      for (int t = 0; t < ev[e].second; ++t) samples.push_back((ev[e].first - ev[e - 1].first) / ev[e].second);
  return stats_of(std::move(samples));
}

inline TimedPlan time_plan(const PipelinePlan& plan, const TimingSetup& setup, const StageTimer& timer) {
  const auto& sys = setup.system;
  const int m = timer.stages();
  if (plan.stages != m)
    throw models::InputError(fmt::format("specpipe: plan has {} stages, the system {}", plan.stages, m));
  TimedPlan out;
  sim::TaskGraph& g = out.graph;
  g.set_named(setup.task_names);
  const bool named = setup.task_names;
  // Per step about: draft passes, a compute, a send, a prune and a token per stage.
  g.reserve_tasks(plan.steps.size() * (4 * std::size_t(m) + 4));
  std::vector<int> dev_res(sys.devices.size()), host_res(sys.devices.size());
  for (std::size_t i = 0; i < sys.devices.size(); ++i)
    dev_res[i] = g.add_resource({sys.devices[i].name, sim::ResourceKind::device_stream, sys.devices[i].name});
  for (std::size_t i = 0; i < sys.devices.size(); ++i)
    host_res[i] = g.add_resource({"host:" + sys.devices[i].name, sim::ResourceKind::host, sys.devices[i].name});
  sim::LaneResources lanes;
  for (const auto& lane : sys.lanes) lanes.resource_of_lane.push_back(g.add_resource({lane, sim::ResourceKind::link, "links"}));
  const int draft_dev = plan.draft_on_last_stage ? timer.device_of(m - 1) : sys.draft_device;
  const bool has_draft = plan.draft_on_last_stage ? setup.head.has_value() : setup.draft.has_value() && draft_dev >= 0;
  if (plan.draft_on_last_stage && !setup.head)
    throw models::InputError(fmt::format("{}: the plan drafts with an EAGLE head but none is set up", plan.method));
  auto hop_factor = [&](int i) {
    return std::size_t(i) < plan.hop_payload_factor.size() ? plan.hop_payload_factor[std::size_t(i)] : 1.0;
  };
  auto batch_of = [](const StepPlan& st, int i) { return st.batch.empty() ? 1 : std::max(1, st.batch[std::size_t(i)]); };
  const double emb_bytes = setup.target.hidden_size * setup.target.activation_bytes();
  auto task = [&](int res, std::string name, std::string cat, double busy, std::vector<int> deps) {
    sim::TimelineTask t;
    t.name = std::move(name);
    t.category = std::move(cat);
    t.resource = res;
    t.busy_s = busy;
    deps.erase(std::remove(deps.begin(), deps.end(), -1), deps.end());
    t.deps = std::move(deps);
    return g.add_task(std::move(t));
  };
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
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    const StepPlan& st = plan.steps[s];
    const std::string tag = named ? fmt::format("step {}", s) : std::string();
    // The draft's passes (after it learned the previous step's token), then, for a tree built at
    // the start of the step, its send to stage 0.
    int draft_done = -1;
    if (has_draft && !st.draft_passes.empty()) {
      std::vector<int> deps{prev_token_to_draft, last_draft};
      for (int w : st.draft_passes) {
        const double busy = plan.draft_on_last_stage ? timer.head_s(w, st.draft_batch) : timer.draft_s(w, st.draft_batch);
        draft_done = task(dev_res[std::size_t(draft_dev)],
                          !named               ? std::string()
                          : st.draft_batch > 1 ? fmt::format("{} draft {} x {} nodes", tag, st.draft_batch, w)
                                               : fmt::format("{} draft {} nodes", tag, w),
                          "draft", busy, deps);
        deps = {draft_done};
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
    std::vector<int> comp(std::size_t(m), -1);
    for (int i = 0; i < m; ++i) {
      const int n = st.compute[std::size_t(i)];
      if (n <= 0) continue;
      std::vector<int> deps{prev_prune[std::size_t(i)], last_compute[std::size_t(i)]};
      if (i == 0) {
        if (st.first == FirstInput::draft_previous) deps.push_back(prev_level_send);
        if (st.first == FirstInput::draft_now) deps.push_back(level_now);
        if (st.first == FirstInput::verified_token || st.first_needs_token) deps.push_back(prev_token_to_first);
      } else {
        deps.push_back(prev_send[std::size_t(i - 1)]);
      }
      const auto& stg = sys.stages[std::size_t(i)];
      const int b = batch_of(st, i);
      double busy = timer.stage_s(i, n, b);
      if (plan.ragged_batches && b > 1)
        busy *= 1.0 + sys.devices[std::size_t(timer.device_of(i))].hardware.stack.ragged_batch_overhead_ratio;
      comp[std::size_t(i)] = task(dev_res[std::size_t(timer.device_of(i))],
                                  !named ? std::string()
                                  : b > 1 ? fmt::format("{} stage {} layers {}-{}: {} tokens of {} requests", tag, i,
                                                      stg.first_layer, stg.last_layer, n, b)
                                        : fmt::format("{} stage {} layers {}-{}: {} tokens", tag, i, stg.first_layer,
                                                      stg.last_layer, n),
                                  "compute", busy, deps);
      last_compute[std::size_t(i)] = comp[std::size_t(i)];
    }
    // The emitted token goes to the devices that need it.
    std::vector<int> token_at(std::size_t(m), -1);
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
    std::vector<int> prune(std::size_t(m), -1), send(std::size_t(std::max(0, m - 1)), -1);
    for (int i = 0; i < m; ++i) {
      if (st.prune && setup.prune_s > 0)
        prune[std::size_t(i)] = task(host_res[std::size_t(timer.device_of(i))],
                                     named ? fmt::format("{} prune stage {}", tag, i) : std::string(),
                                     "host", setup.prune_s, {comp[std::size_t(i)], token_at[std::size_t(i)]});
      if (i + 1 < m && st.send[std::size_t(i)] > 0) {
        const int n = st.send[std::size_t(i)];
        const double bytes = n * (emb_bytes * hop_factor(i) + double(n) / batch_of(st, i) / 8.0);
        send[std::size_t(i)] = sim::add_routed_send(g, sys, lanes, timer.device_of(i), timer.device_of(i + 1), bytes,
                                             [&] {
                                               std::vector<int> d{comp[std::size_t(i)]};
                                               if (token_at[std::size_t(i)] >= 0) d.push_back(token_at[std::size_t(i)]);
                                               return d;
                                             }(),
                                             named ? fmt::format("{} embeddings stage {} -> {}: {} tokens", tag, i, i + 1, n)
                                                   : std::string());
        out.max_hop_bytes = std::max(out.max_hop_bytes, g.task(send[std::size_t(i)]).bytes);
        if (timer.device_of(i) == timer.device_of(i + 1)) send[std::size_t(i)] = comp[std::size_t(i)];
      }
    }
    int level_next = -1;
    if (st.first != FirstInput::draft_now && st.level_tokens > 0)
      level_next = send_level({draft_done, st.level_waits_for_verify ? token_to_draft : -1});
    prev_send = send;
    prev_prune = prune;
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
  for (int i = 0; i < m; ++i) {
    double busy = 0;
    for (const auto& t : g.tasks())
      if (t.resource == dev_res[std::size_t(timer.device_of(i))] && t.category == "compute") busy += t.busy_s;
    out.stage_utilisation.push_back(busy / span);
  }
  if (has_draft) out.draft_utilisation = out.run.resource_busy_s[std::size_t(dev_res[std::size_t(draft_dev)])] / span;
  double bytes = 0;
  for (const auto& t : g.tasks()) bytes += t.bytes;
  out.link_bytes_per_step = plan.steps.empty() ? 0 : bytes / double(plan.steps.size());
  // Steps between the first and the last emission.
  long long first_step = -1, last_step = -1;
  for (std::size_t s = 0; s < plan.steps.size(); ++s)
    if (plan.steps[s].emitted > 0) {
      if (first_step < 0) first_step = (long long)s;
      last_step = (long long)s;
    }
  out.mean_step_s = last_step > first_step ? out.window_s / double(last_step - first_step) : 0.0;
  return out;
}

// Paper 002's t_i(w) for eq. (1)-(2): stage i's compute over w tokens plus its step overhead as
// the timeline charges it (the emitted token's trip from the last stage, then the longer of the
// prune and the w-token hop to the next stage, which overlap).
inline std::vector<double> paper_step_times(const TimingSetup& setup, const StageTimer& timer, int w) {
  const int m = timer.stages();
  const int last = timer.device_of(m - 1);
  const double emb = setup.target.hidden_size * setup.target.activation_bytes();
  std::vector<double> t;
  for (int i = 0; i < m; ++i) {
    const int d = timer.device_of(i);
    const double hop = i + 1 < m ? timer.hop_s(d, timer.device_of(i + 1), w * (emb + w / 8.0)) : 0.0;
    t.push_back(timer.stage_s(i, w) + timer.hop_s(last, d, kVerifiedTokenBytes) + std::max(setup.prune_s, hop));
  }
  return t;
}

// The two step times of the mechanism form of E(T): T_hit, a step that hits (every stage but the
// last holds at most w tokens, the last the one verified token; then the emitted token's trip,
// and the prune overlapped with the hop), and T_miss, the refill after a miss (the token's trip
// back to stage 0, stage 0's prune, then one token through every stage and link).
struct MechanismTimes {
  double t_hit = 0, t_miss = 0;
};

inline MechanismTimes mechanism_times(const TimingSetup& setup, const StageTimer& timer, int w) {
  const int m = timer.stages();
  const int last = timer.device_of(m - 1);
  const double emb = setup.target.hidden_size * setup.target.activation_bytes();
  MechanismTimes r;
  r.t_miss = timer.hop_s(last, timer.device_of(0), kVerifiedTokenBytes) + setup.prune_s;
  for (int i = 0; i < m; ++i) {
    const int d = timer.device_of(i);
    const bool is_last = i + 1 == m;
    const double hop_w = is_last ? 0.0 : timer.hop_s(d, timer.device_of(i + 1), w * (emb + w / 8.0));
    r.t_hit = std::max(r.t_hit, timer.stage_s(i, is_last ? 1 : w) + timer.hop_s(last, d, kVerifiedTokenBytes) +
                                    std::max(setup.prune_s, hop_w));
    r.t_miss += timer.stage_s(i, 1) + (is_last ? 0.0 : timer.hop_s(d, timer.device_of(i + 1), emb + 1 / 8.0));
  }
  return r;
}

// Memory of every device for a SpecPipe run (w-token levels; the system's KV budget or the
// context); InputError "infeasible: ..." naming the first device that does not fit.
// With several requests the system's KV budget (paper 002 §4.5: 81,920 tokens "for all requests")
// is shared: it must hold every request's context and level, or the run is infeasible; without a
// budget each request reserves its own context.
inline std::vector<sim::DeviceMemory> check_memory(const TimingSetup& setup, int width, int requests = 1) {
  sim::MemoryQuery q;
  q.step_tokens = width;
  q.kv_tokens = setup.system.memory.kv_tokens > 0 ? setup.system.memory.kv_tokens : setup.context + width;
  if (setup.system.memory.kv_tokens > 0) {
    const long long need = (long long)requests * (setup.context + width);
    if (need > setup.system.memory.kv_tokens)
      throw models::InputError(fmt::format("{}: infeasible: {} requests x (context {} + {} tree tokens) = {} KV slots exceed "
                                           "the system's KV budget of {} tokens (memory.kv_tokens)",
                                           setup.system.name, requests, setup.context, width, need,
                                           setup.system.memory.kv_tokens));
    q.step_tokens = width * requests;  // one KV pool; the step's activations hold every request's level
  } else {
    q.batch = requests;
  }
  // The last stage computes each request's verified token only (its level was pruned to it).
  q.lm_head_tokens = requests;
  q.parameter_rule = setup.system.memory.parameter_rule;
  auto mem = sim::system_memory(setup.system, setup.target, setup.draft ? &*setup.draft : nullptr, q);
  for (const auto& d : mem)
    if (!d.fits())
      throw models::InputError(fmt::format("{}: infeasible: device {} ({}) {}", setup.system.name, d.device, d.roles,
                                           sim::fit_status(d)));
  return mem;
}

}  // namespace search::specpipe
