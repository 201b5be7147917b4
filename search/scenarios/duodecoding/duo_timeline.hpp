#pragma once
// Lays a plan (duo_plan.hpp) on the system timeline (sim/system/timeline.hpp, simulated in
// SystemC): the target's device stream, the draft's device stream and the link lanes between
// them. Per DuoDecoding iteration i:
//   target  T_i: forward over x_i tokens                      after V_{i-1}
//   draft   D_i: budget passes                                after R_{i-1} (the verdict reached it)
//   link    S_i: draft tokens + their distributions -> target after D_i
//   target  V_i: verification (the two meet)                  after T_i and S_i
//   link    R_i: verdict (appended tokens) -> draft           after V_i
// SpS is D_i -> S_i -> T_i -> V_i -> R_i in sequence; AD is T_i after T_{i-1}. A draft on the
// target's own device shares its stream (FIFO) and needs no link. An iteration ends when V_i
// (AD: T_i) ends; tokens are available then.
//
// Header-only on purpose: the `search` library does not link `sim` (CMakeLists.txt), so the code
// that builds sim::TaskGraph lives here and is compiled only into binaries that link both (the
// specdse executable, tests/experiments). With `search` linking `sim` it can move to a .cpp.
#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <vector>

#include "models/config_error.hpp"
#include "search/scenarios/duodecoding/duo_costs.hpp"
#include "search/scenarios/duodecoding/duo_plan.hpp"
#include "sim/system/collectives.hpp"
#include "sim/system/timeline.hpp"

namespace search::duodecoding {

// Token ids travel as int32 (llama.cpp's llama_token, PyTorch int32 ids).
inline constexpr double kTokenIdBytes = 4.0;
// Speculative sampling needs the draft's distribution q over the whole vocabulary at every
// drafted position (Leviathan et al. 2023, Algorithm 1: resample from max(0, p - q)); paper 003
// §3 "communication for synchronizing output probabilities". FP32 probabilities (llama.cpp's
// logits are float).
inline constexpr double kProbabilityBytes = 4.0;

inline double draft_to_target_bytes(int draft_tokens, int draft_vocab) {
  return double(draft_tokens) * (kTokenIdBytes + double(draft_vocab) * kProbabilityBytes);
}
// The verdict: the appended token ids and their count.
inline double target_to_draft_bytes(int gained) { return double(gained + 1) * kTokenIdBytes; }

// Seconds one message of `bytes` takes from a to b on the system's link (0 on one device).
inline double link_transfer_s(const DuoPlacement& pl, int a, int b, double bytes) {
  if (a == b) return 0;
  const auto* l = pl.system.link_between(a, b);
  return l ? l->spec.transfer_s(bytes) : 0;
}

struct IterationTiming {
  double end_s = 0;        // when the iteration's tokens are available
  double iteration_s = 0;  // end_s minus the previous iteration's end_s
  double target_s = 0;     // target forward busy time
  double draft_s = 0;      // draft busy time
  double comm_s = 0;       // both transfers, send start to arrival
};

struct ScenarioRun {
  Plan plan;
  sim::TaskGraph graph;
  sim::TimelineRun run;
  std::vector<IterationTiming> timing;
  double seconds = 0;  // until the last iteration's tokens
  double tokens_per_s = 0;
  double target_busy_s = 0, draft_busy_s = 0, link_busy_s = 0;
  double target_idle_fraction = 0, draft_idle_fraction = 0;
  double mean_iteration_s = 0, mean_target_s = 0, mean_draft_s = 0, mean_comm_s = 0;
  double tokens_per_iteration = 0;     // appended
  double processed_per_iteration = 0;  // tokens through the target's forward (x)
};

inline ScenarioRun run_plan(const DuoPlacement& pl, const DuoCosts& c, const Plan& plan, int draft_vocab) {
  ScenarioRun out;
  out.plan = plan;
  sim::TaskGraph& g = out.graph;
  const auto& s = pl.system;
  const int tdev = pl.target_device, ddev = pl.draft_device;
  const int tres = g.add_resource({s.devices[std::size_t(tdev)].name, sim::ResourceKind::device_stream,
                                   s.devices[std::size_t(tdev)].name});
  const int dres = pl.same_device() ? tres
                                    : g.add_resource({s.devices[std::size_t(ddev)].name, sim::ResourceKind::device_stream,
                                                      s.devices[std::size_t(ddev)].name});
  sim::LaneResources lanes;
  for (const auto& lane : s.lanes) lanes.resource_of_lane.push_back(g.add_resource({lane, sim::ResourceKind::link, "links"}));

  auto task = [&](int res, std::string name, std::string category, double busy, std::vector<int> deps) {
    sim::TimelineTask t;
    t.name = std::move(name);
    t.category = std::move(category);
    t.resource = res;
    t.busy_s = busy;
    t.deps = std::move(deps);
    return g.add_task(std::move(t));
  };
  auto send = [&](int a, int b, double bytes, int after, const std::string& name) {
    if (a == b) return after;
    return sim::add_send(g, s, lanes, a, b, bytes, {after}, name);
  };
  auto deps_of = [](int t) { return t < 0 ? std::vector<int>{} : std::vector<int>{t}; };

  struct Ids { int target = -1, draft = -1, to_target = -1, verify = -1, to_draft = -1; };
  std::vector<Ids> ids;
  ids.reserve(plan.iterations.size());
  int prev_verify = -1, prev_verdict = -1;
  for (std::size_t i = 0; i < plan.iterations.size(); ++i) {
    const auto& it = plan.iterations[i];
    Ids k;
    const std::string n = std::to_string(i);
    if (plan.method == Method::ad) {
      k.target = task(tres, "AD forward " + n, "compute", c.target_forward_s(1), deps_of(prev_verify));
      k.verify = k.target;
    } else if (plan.method == Method::sps) {
      k.draft = task(dres, fmt::format("draft {} x{}", n, it.draft_passes), "draft",
                     it.draft_passes * c.draft_pass_s(), deps_of(prev_verdict));
      k.to_target = send(ddev, tdev, draft_to_target_bytes(it.draft_tokens, draft_vocab), k.draft, "draft -> target " + n);
      k.target = task(tres, fmt::format("verify {} x={}", n, it.x), "compute", c.target_forward_s(it.x),
                      deps_of(k.to_target));
      k.verify = task(tres, "verdict " + n, "host", 0, {k.target});
      k.to_draft = send(tdev, ddev, target_to_draft_bytes(it.gained), k.verify, "verdict -> draft " + n);
    } else {
      k.target = task(tres, fmt::format("target {} x={}", n, it.x), "compute", c.target_forward_s(it.x),
                      deps_of(prev_verify));
      k.draft = task(dres, fmt::format("draft {} x{} seq{}", n, it.draft_passes, it.sequences), "draft",
                     it.draft_passes * c.draft_pass_s(), deps_of(prev_verdict));
      k.to_target = send(ddev, tdev, draft_to_target_bytes(it.draft_tokens, draft_vocab), k.draft, "draft -> target " + n);
      std::vector<int> meet{k.target};
      if (k.to_target != k.target) meet.push_back(k.to_target);
      k.verify = task(tres, "verify " + n, "host", 0, meet);
      k.to_draft = send(tdev, ddev, target_to_draft_bytes(it.gained), k.verify, "verdict -> draft " + n);
    }
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
  for (std::size_t t = 0; t < g.tasks().size(); ++t) {
    const auto& tk = g.tasks()[t];
    if (tk.resource == tres && tk.category == "compute") out.target_busy_s += tk.busy_s;
    if (tk.resource == dres && tk.category == "draft") out.draft_busy_s += tk.busy_s;
    if (g.resources()[std::size_t(tk.resource)].kind == sim::ResourceKind::link) out.link_busy_s += tk.busy_s;
  }
  const double n = double(std::max<std::size_t>(1, ids.size()));
  if (out.seconds > 0) {
    out.tokens_per_s = double(plan.tokens) / out.seconds;
    // A shared device is idle when neither model runs on it.
    const double on_target = out.target_busy_s + (pl.same_device() ? out.draft_busy_s : 0);
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

// Time to first token (paper 003 §4.3) for a prompt of `prompt` tokens, from the same engine and
// link costs (each a chain of at most four tasks, so closed form):
//   AD:                  target prefill;
//   SpS (sequential):    draft prefill + gamma passes -> tokens to the target -> target forward
//                        over prompt + gamma tokens (prefill and verification in one pass);
//   DuoDecoding parallel: target prefill alongside draft prefill + budget passes, then they meet;
//   DuoDecoding without the parallel layout: the same work one after the other.
struct TtftResult {
  double ad_s = 0, sps_s = 0, duo_parallel_s = 0, duo_sequential_s = 0;
};

inline TtftResult time_to_first_token(const DuoPlacement& pl, const DuoCosts& c, int prompt, int sps_gamma,
                                      int budget, int draft_vocab) {
  if (prompt < 1) throw models::InputError(fmt::format("--prompt: expected >= 1 tokens, got {}", prompt));
  TtftResult t;
  const int tdev = pl.target_device, ddev = pl.draft_device;
  t.ad_s = c.target_prefill_s(prompt);
  const double draft_sps = c.draft_prefill_s(prompt) + sps_gamma * c.draft_pass_s();
  t.sps_s = draft_sps + link_transfer_s(pl, ddev, tdev, draft_to_target_bytes(sps_gamma, draft_vocab)) +
            c.target_prefill_s(prompt + sps_gamma);
  const double draft_duo = c.draft_prefill_s(prompt) + budget * c.draft_pass_s();
  const double to_target = link_transfer_s(pl, ddev, tdev, draft_to_target_bytes(budget, draft_vocab));
  // On one device the two prefills share the stream: no overlap.
  t.duo_parallel_s = pl.same_device() ? draft_duo + c.target_prefill_s(prompt)
                                      : std::max(c.target_prefill_s(prompt), draft_duo + to_target);
  t.duo_sequential_s = draft_duo + to_target + c.target_prefill_s(prompt);
  return t;
}

}  // namespace search::duodecoding
