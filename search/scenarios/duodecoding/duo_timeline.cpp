#include "search/scenarios/duodecoding/duo_timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "models/config_error.hpp"
#include "sim/system/collectives.hpp"

namespace search::duodecoding {

namespace {

// Seconds during which a task of resource a or b is busy (the union of their busy intervals).
double union_busy_s(const sim::TaskGraph& g, const sim::TimelineRun& r, int a, int b) {
  std::vector<std::pair<double, double>> spans;
  for (std::size_t t = 0; t < g.task_count(); ++t) {
    const auto& tk = g.task(int(t));
    if ((tk.resource == a || tk.resource == b) && tk.busy_s > 0) spans.emplace_back(r.start_s[t], r.end_s[t]);
  }
  std::sort(spans.begin(), spans.end());
  double busy = 0, from = 0, to = -1;
  for (const auto& [s0, s1] : spans) {
    if (s0 > to) {
      busy += std::max(0.0, to - from);
      from = s0;
      to = s1;
    } else {
      to = std::max(to, s1);
    }
  }
  return busy + std::max(0.0, to - from);
}

}  // namespace

// float32 draft_prob_comm of budget + 1 elements; int32 comm_tensor of three (duo_timeline.hpp).
double duo_draft_message_bytes(int budget) { return double(budget + 1) * sizeof(float); }
double duo_verdict_message_bytes() { return 3.0 * sizeof(std::int32_t); }

ScenarioRun run_plan(const DuoPlacement& pl, const DuoCosts& c, const Plan& plan, int draft_vocab) {
  ScenarioRun out;
  out.plan = plan;
  sim::TaskGraph& g = out.graph;
  const auto& s = pl.system;
  const int tdev = pl.target_device, ddev = pl.draft_device;
  // A GPU shared by DuoDecoding's two models runs them as two CUDA streams (paper 003 on one
  // GPU): the target's forward on stream 0, the draft's passes on stream 1, each task's busy
  // time its co-located time (DuoCosts::co_located_at). Approximation: both streams of an
  // iteration start together at its start (they do: both wait for the previous verdict) and
  // their busy times are fixed then, from the SystemC model's run of the two streams alone
  // together; the stream that ends first is not sped up afterwards in the timeline (the model's
  // end times already include the longer stream's tail alone). Other shared devices, and AD and
  // SpS (whose draft and target never overlap), keep one FIFO resource.
  const bool streams = pl.same_device() && c.co_located() && plan.method == Method::duo;
  const std::string& tname = s.devices[std::size_t(tdev)].name;
  const int tres = g.add_resource({streams ? tname + " stream 0" : tname, sim::ResourceKind::device_stream, tname});
  const int dres = streams           ? g.add_resource({tname + " stream 1", sim::ResourceKind::device_stream, tname})
                   : pl.same_device() ? tres
                                      : g.add_resource({s.devices[std::size_t(ddev)].name, sim::ResourceKind::device_stream,
                                                        s.devices[std::size_t(ddev)].name});
  const sim::LaneResources lanes = sim::add_lane_resources(g, s);

  auto send = [&](int a, int b, double bytes, int after, const std::string& name) {
    if (a == b) return after;
    return sim::add_routed_send(g, s, lanes, a, b, bytes, {after}, name);
  };

  struct Ids { int target = -1, draft = -1, to_target = -1, verify = -1, to_draft = -1; };
  std::vector<Ids> ids;
  ids.reserve(plan.iterations.size());
  int prev_verify = -1, prev_verdict = -1;
  long long generated = 0;  // tokens appended before this iteration: the KV grows with them
  for (std::size_t i = 0; i < plan.iterations.size(); ++i) {
    const auto& it = plan.iterations[i];
    const double t_pass = c.draft_pass_at(generated);
    Ids k;
    const std::string n = std::to_string(i);
    if (plan.method == Method::ad) {
      k.target = g.add_work(tres, "AD forward " + n, "compute", c.target_forward_at(1, generated),
                      {prev_verify});
      k.verify = k.target;
    } else if (plan.method == Method::sps) {
      k.draft = g.add_work(dres, fmt::format("draft {} x{}", n, it.draft_passes), "draft",
                     it.draft_passes * t_pass, {prev_verdict});
      k.to_target = send(ddev, tdev, draft_to_target_bytes(it.draft_tokens, draft_vocab), k.draft, "draft -> target " + n);
      k.target = g.add_work(tres, fmt::format("verify {} x={}", n, it.x), "compute", c.target_forward_at(it.x, generated),
                      {k.to_target});
      k.verify = g.add_work(tres, "verdict " + n, "host", 0, {k.target});
      k.to_draft = send(tdev, ddev, verdict_bytes(it.gained), k.verify, "verdict -> draft " + n);
    } else {
      const auto [t_busy, d_busy] = streams ? c.co_located_at(it.x, it.draft_passes, generated)
                                            : std::make_pair(c.target_forward_at(it.x, generated), it.draft_passes * t_pass);
      k.target = g.add_work(tres, fmt::format("target {} x={}", n, it.x), "compute", t_busy, {prev_verify});
      k.draft = g.add_work(dres, fmt::format("draft {} x{} seq{}", n, it.draft_passes, it.sequences), "draft", d_busy,
                     {prev_verdict});
      k.to_target = send(ddev, tdev, duo_draft_message_bytes(plan.budget), k.draft, "draft -> target " + n);
      std::vector<int> meet{k.target};
      if (k.to_target != k.target) meet.push_back(k.to_target);
      k.verify = g.add_work(tres, "verify " + n, "host", 0, meet);
      k.to_draft = send(tdev, ddev, duo_verdict_message_bytes(), k.verify, "verdict -> draft " + n);
    }
    generated += it.gained;
    prev_verify = k.verify;
    prev_verdict = k.to_draft >= 0 ? k.to_draft : k.verify;
    ids.push_back(k);
  }
  out.run = sim::run_timeline(g);
  const auto& r = out.run;

  double prev_end = 0;
  auto dur = [&](int t) { return t < 0 ? 0.0 : r.end_s[std::size_t(t)] - r.start_s[std::size_t(t)]; };
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto& k = ids[i];
    IterationTiming ti;
    ti.end_s = r.end_s[std::size_t(k.verify)];
    ti.iteration_s = ti.end_s - prev_end;
    prev_end = ti.end_s;
    ti.target_s = g.task(k.target).busy_s;
    ti.draft_s = k.draft >= 0 ? g.task(k.draft).busy_s : 0;
    ti.comm_s = (k.to_target >= 0 && k.to_target != k.draft ? dur(k.to_target) : 0) +
                (k.to_draft >= 0 && k.to_draft != k.verify ? dur(k.to_draft) : 0);
    out.timing.push_back(ti);
  }
  out.seconds = prev_end;
  for (std::size_t t = 0; t < g.task_count(); ++t) {
    const auto& tk = g.task(int(t));
    if (tk.resource == tres && tk.category == "compute") out.target_busy_s += tk.busy_s;
    if (tk.resource == dres && tk.category == "draft") out.draft_busy_s += tk.busy_s;
    if (g.resources()[std::size_t(tk.resource)].kind == sim::ResourceKind::link) out.link_busy_s += tk.busy_s;
  }
  const double n = double(std::max<std::size_t>(1, ids.size()));
  if (out.seconds > 0) {
    out.tokens_per_s = double(plan.tokens) / out.seconds;
    // A shared device is idle when neither model runs on it (its two streams overlap).
    const double on_target = streams            ? union_busy_s(g, r, tres, dres)
                             : pl.same_device() ? out.target_busy_s + out.draft_busy_s
                                                : out.target_busy_s;
    out.target_idle_fraction = std::max(0.0, 1 - on_target / out.seconds);
    out.draft_idle_fraction = plan.method == Method::ad ? 1.0
                              : pl.same_device()        ? out.target_idle_fraction
                                                        : std::max(0.0, 1 - out.draft_busy_s / out.seconds);
  }
  long long processed = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    out.mean_iteration_s += out.timing[i].iteration_s / n;
    out.mean_target_s += out.timing[i].target_s / n;
    out.mean_draft_s += out.timing[i].draft_s / n;
    out.mean_comm_s += out.timing[i].comm_s / n;
    processed += plan.iterations[i].x;
  }
  out.tokens_per_iteration = double(plan.tokens) / n;
  out.processed_per_iteration = double(processed) / n;
  return out;
}

namespace {

// One layout of the first token on the timeline: the draft's prefill and `passes` draft passes
// on its device (none when passes < 0), their tokens to the target's device along the route,
// and the target's prefill over `target_tokens` on its device, started after the tokens arrive
// when `target_waits`, else at once (the parallel layout). A shared device serves the draft
// first. `message_bytes`: the drafted tokens' message. Returns the makespan.
double first_token_s(const DuoPlacement& pl, const DuoCosts& c, int prompt, int passes, int target_tokens,
                     bool target_waits, double message_bytes) {
  sim::TaskGraph g;
  g.set_named(false);
  const auto& s = pl.system;
  const int tdev = pl.target_device, ddev = pl.draft_device;
  const int tres = g.add_resource({s.devices[std::size_t(tdev)].name, sim::ResourceKind::device_stream, ""});
  const int dres = pl.same_device() ? tres
                                    : g.add_resource({s.devices[std::size_t(ddev)].name, sim::ResourceKind::device_stream, ""});
  const sim::LaneResources lanes = sim::add_lane_resources(g, s);
  std::vector<int> before_target;
  if (passes >= 0) {
    int last = g.add_work(dres, "", "compute", c.draft_prefill_s(prompt), {});
    for (int i = 0; i < passes; ++i) last = g.add_work(dres, "", "compute", c.draft_pass_s(), {last});
    if (!pl.same_device())
      last = sim::add_routed_send(g, s, lanes, ddev, tdev, message_bytes, {last}, "");
    if (target_waits) before_target.push_back(last);
  }
  g.add_work(tres, "", "compute", c.target_prefill_s(target_tokens), before_target);
  return sim::run_timeline(g).makespan_s;
}

}  // namespace

TtftResult time_to_first_token(const DuoPlacement& pl, const DuoCosts& c, int prompt, int sps_gamma, int duo_budget,
                               int draft_vocab) {
  if (prompt < 1) throw models::InputError(fmt::format("--prompt: expected >= 1 tokens, got {}", prompt));
  TtftResult t;
  t.ad_s = first_token_s(pl, c, prompt, -1, prompt, true, 0);
  t.sps_s = first_token_s(pl, c, prompt, sps_gamma, prompt + sps_gamma, true, draft_to_target_bytes(sps_gamma, draft_vocab));
  const double duo_message = duo_draft_message_bytes(duo_budget);
  t.duo_parallel_s = first_token_s(pl, c, prompt, kDuoFirstIterationDraftTokens, prompt, false, duo_message);
  t.duo_sequential_s = first_token_s(pl, c, prompt, kDuoFirstIterationDraftTokens, prompt, true, duo_message);
  return t;
}

}  // namespace search::duodecoding
