// chain-sd: chain speculative decoding across two devices of a system (paper 001's setting with
// the draft placed anywhere): the draft drafts gamma tokens one pass at a time on device A, the
// tokens and their distributions cross the system's route to device B, the target verifies
// gamma + 1 tokens there and the verdict crosses back. Each iteration is laid on the system
// timeline (draft passes, routed transfers, verification), so a draft on the target's own
// device, on another GPU, on the CPU or behind a relay are all the same code; per-token
// acceptance alpha gives the expected tokens per iteration (1 - alpha^(gamma+1)) / (1 - alpha)
// (Leviathan et al. 2023, independent acceptance), or an acceptance process band (--acceptance)
// its chain tokens per call: the rows at the band's central fit, tokens_per_s_low / _high over
// every fit. Per context: tokens/s per window, the best
// marked, and the speed-up over plain decoding on the target's device. A placement whose
// models do not fit a device's memory is a row with status "infeasible", never timed.
#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <map>
#include <memory>

#include "models/config_error.hpp"
#include "models/draft_compatibility.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "search/draft_placement.hpp"
#include "search/scenarios/chain_sd/chain_sd_scenario.hpp"
#include "search/scenarios/scenario.hpp"
#include "search/work_bound.hpp"
#include "sim/system/collectives.hpp"
#include "sim/system/memory_fit.hpp"
#include "sim/system/system_costs.hpp"
#include "sim/system/system_step.hpp"
#include "sim/system/timeline.hpp"

namespace search::chain_sd {
namespace {

// The per-token acceptance when neither --alpha nor --acceptance is given (a typical draft's).
constexpr double kDefaultAlpha = 0.7;

int device_named(const models::SystemSpec& s, const std::string& name, const std::string& param, int fallback) {
  if (name.empty()) {
    if (fallback < 0)
      throw models::InputError(fmt::format("scenario chain-sd: --{}: system '{}' places none; name a device", param, s.name));
    return fallback;
  }
  const int d = s.device_index(name);
  if (d < 0) {
    std::string names;
    for (const auto& dev : s.devices) names += (names.empty() ? "" : ", ") + dev.name;
    throw models::InputError(
        fmt::format("scenario chain-sd: --{}: system '{}' has no device '{}' (devices: {})", param, s.name, name, names));
  }
  return d;
}

struct Iteration {
  double draft_s = 0, transfer_s = 0, verify_s = 0, step_s = 0;
  // The iteration's timeline, kept for --trace-out (tasks named only then).
  std::shared_ptr<sim::TaskGraph> graph;
  std::shared_ptr<sim::TimelineRun> run;
};

// Where the target verifies: one device (B), or the system's whole target placement (pipeline
// stages, tensor-parallel groups), whose step the system timeline times
// (sim::SystemCosts::system_step_times: stage compute, collectives, activations between stages).
struct TargetSide {
  int first = -1, last = -1;  // device receiving the draft's tokens / sending the verdict
  bool whole_placement = false;
  // Seconds of one verification of `tokens` tokens at context L (memoised for the placement).
  std::function<double(int tokens, long long context)> verify_s;
};

// One draft-verify iteration on the timeline: gamma draft passes on A, tokens A -> the target,
// verify there, verdict back to A.
Iteration time_iteration(const sim::SystemCosts& costs, int draft_dev, const TargetSide& target, int draft_id,
                         int gamma, long long context, int draft_vocab, bool named) {
  const auto& s = costs.system();
  auto graph = std::make_shared<sim::TaskGraph>();
  sim::TaskGraph& g = *graph;
  g.set_named(named);
  const int target_dev = target.first;
  const auto& dname = s.devices[std::size_t(draft_dev)].name;
  const auto& tname = s.devices[std::size_t(target_dev)].name;
  const int dres = g.add_resource({dname, sim::ResourceKind::device_stream, dname});
  // A whole placement's step is one task (the system step times its inside): on the first
  // stage's device, or on the draft's device when the draft sits there.
  const int tres = draft_dev == target_dev
                       ? dres
                       : g.add_resource({target.whole_placement ? tname + " (target placement)" : tname,
                                         sim::ResourceKind::device_stream, tname});
  const sim::LaneResources lanes = sim::add_lane_resources(g, s);
  Iteration it;
  int last = -1;
  for (int i = 0; i < gamma; ++i) {
    const double pass_s = costs.forward_s(draft_dev, draft_id, {1, context + i, 1, models::MaskKind::causal, true});
    it.draft_s += pass_s;
    last = g.add_work(dres, named ? fmt::format("draft pass {}", i + 1) : "", "draft", pass_s, {last});
  }
  const double to_target = draft_to_target_bytes(gamma, draft_vocab);
  if (draft_dev != target_dev) {
    it.transfer_s += costs.transfer_s(draft_dev, target_dev, to_target);
    last = sim::add_routed_send(g, s, lanes, draft_dev, target_dev, to_target, {last}, "draft tokens");
  }
  it.verify_s = target.verify_s(gamma + 1, context);
  last = g.add_work(tres, named ? fmt::format("verify {} tokens", gamma + 1) : "", "compute", it.verify_s, {last});
  if (draft_dev != target.last) {
    it.transfer_s += costs.transfer_s(target.last, draft_dev, verdict_bytes(gamma + 1));
    sim::add_routed_send(g, s, lanes, target.last, draft_dev, verdict_bytes(gamma + 1), {last}, "verdict");
  }
  it.run = std::make_shared<sim::TimelineRun>(sim::run_timeline(g));
  it.step_s = it.run->makespan_s;
  it.graph = std::move(graph);
  return it;
}

TypedResult<Row> run_chain_sd(const ScenarioContext& ctx, const Params& p) {
  ctx.require(ctx.workload != nullptr, "--model");
  ctx.require(!ctx.contexts.empty(), "--context");
  const bool named_system = ctx.system != nullptr || !p.system.empty();
  if (named_system && ctx.hw)
    throw models::InputError("scenario chain-sd: give one of --system and --hw (one device: draft beside the target)");
  ctx.require(named_system || ctx.hw != nullptr, "--system or --hw");
  ctx.require(!p.draft.empty(), "--draft");
  ctx.require(ctx.configs != nullptr, "the config registry");
  // --hw: the one device (with --stack's stack) as a system, the draft beside the target.
  const auto system = named_system ? ctx.system_spec() : models::single_device_system(*ctx.hw);
  const models::ModelSpec& target = ctx.workload->target;
  const models::ModelSpec draft = ctx.configs->model(p.draft);
  // The draft proposes tokens the target verifies: another model over the same vocabulary.
  models::require_can_draft(draft, target, "scenario chain-sd: --draft");
  const int target_dev = device_named(system, p.target_device, "target-device",
                                      system.stages.empty() ? -1 : system.stages.front().devices.front());
  const int draft_dev = device_named(system, p.draft_device, "draft-device", system.draft_device);
  const std::string& engine = p.engine;
  sim::SystemCosts costs(system, engine);
  const int target_id = costs.add_model(target), draft_id = costs.add_model(draft);
  // Without --target-device, a target the system splits over devices verifies on its placement.
  TargetSide side;
  side.first = side.last = target_dev;
  side.whole_placement = p.target_device.empty() &&
                         (system.stages.size() > 1 || system.stages.front().devices.size() > 1);
  if (side.whole_placement) {
    models::SystemSpec(system).validate_placement(target);
    side.last = system.stages.back().devices.front();
    // The deployment keeps each step (system_step_times): a window search asks for a size again.
    side.verify_s = [&](int tokens, long long L) {
      sim::SystemQuery q;
      q.target = target;
      q.x = tokens;
      q.context = L;
      return costs.system_step_times(q).step_s;
    };
  } else {
    const bool lm_head = system.devices[std::size_t(target_dev)].hardware.verify_includes_lm_head;
    side.verify_s = [&, lm_head](int tokens, long long L) {
      return costs.forward_s(target_dev, target_id,
                             {tokens, L, 1, models::MaskKind::causal, lm_head});
    };
  }
  const auto& gammas = p.gamma;
  require_work_within("chain-sd", fmt::format("--context ({}) x --gamma ({})", ctx.contexts.size(), gammas.size()),
                      double(ctx.contexts.size()) * double(gammas.size()), kMaxChainSdPoints, "windows");
  // Expected tokens per iteration at window gamma: independent alpha (eq. 10 of paper 001), or the
  // process band's fits (the central one for the rows).
  const std::string& band_name = p.acceptance;
  if (!band_name.empty() && p.alpha)
    throw models::InputError("scenario chain-sd: --alpha and --acceptance: give one source of acceptance");
  std::vector<std::function<double(int)>> fits;  // expected tokens per iteration at window gamma
  std::string acceptance_cell, acceptance_note;
  std::size_t central = 0;
  if (band_name.empty()) {
    const double alpha = p.alpha.value_or(kDefaultAlpha);
    fits.push_back([alpha](int gamma) { return (1 - std::pow(alpha, double(gamma) + 1)) / (1 - alpha); });
    acceptance_cell = fmt::format("independent alpha {}", alpha);
    acceptance_note = fmt::format("alpha {} (independent per-token acceptance)", alpha);
  } else {
    const ProcessBand band = resolve_process_band(band_name, ctx.configs->dir(), "--acceptance");
    for (const auto& m : band.members) {
      if (&m == &band.central()) central = fits.size();
      fits.push_back([p = AcceptanceProcess(m.params, band.name)](int gamma) { return p.chain_tpc(gamma); });
    }
    acceptance_cell = band.column();
    acceptance_note = fmt::format("acceptance process {} (rows: central fit {}; low / high over its {} fits)", band.name,
                                  band.central().params.describe(), band.members.size());
  }

  TypedResult<Row> out;
  ScenarioResult& r = out.table;
  std::vector<std::string> at_limit;  // contexts whose best window is the largest searched
  r.narrow_columns = {"draft_device", "target_device", "context", "gamma", "status", "expected_tokens_per_step",
                      "step_s", "tokens_per_s", "speedup", "best"};
  const auto& ddev = system.devices[std::size_t(draft_dev)];
  const auto& tdev = system.devices[std::size_t(target_dev)];
  // --trace-out: the fastest iteration over every context and window.
  Iteration traced;
  double traced_rate = -1;
  for (long long L : ctx.contexts) {
    // Memory: both models whole, with the KV cache of the longest step, on their devices (one
    // device holds both when they share it).
    sim::MemoryQuery q;
    q.kv_tokens = L + gammas.back() + 1;
    q.step_tokens = int(gammas.back()) + 1;
    RowStatus status;
    if (side.whole_placement) {
      // Every device of the placement with its share of the target, the draft on its device.
      q.kv_tokens = system.memory.kv_tokens > 0 ? system.memory.kv_tokens : q.kv_tokens;
      q.parameter_rule = system.memory.parameter_rule;
      for (const auto& d : costs.memory(target, &draft, q, draft_dev))
        if (!d.fits() && status.is_ok()) status = RowStatus::infeasible(sim::fit_status(d) + " on " + d.device);
    } else {
      const auto tmem = costs.device_memory(target_dev, target, q, draft_dev == target_dev ? &draft : nullptr);
      if (!tmem.fits()) status = RowStatus::infeasible(sim::fit_status(tmem) + " on " + tdev.name);
      if (draft_dev != target_dev) {
        const auto dmem = costs.device_memory(draft_dev, draft, q);
        if (!dmem.fits() && status.is_ok()) status = RowStatus::infeasible(sim::fit_status(dmem) + " on " + ddev.name);
      }
    }
    const double ar_s = side.verify_s(1, L);
    const std::size_t first = out.rows.size();
    std::optional<std::size_t> best;  // index in out.rows
    double best_rate = -1;
    for (long long gamma : gammas) {
      Row row;
      row.system = system.name;
      row.draft_device = ddev.name;
      row.target_device = tdev.name;
      row.context = L;
      row.gamma = gamma;
      row.status = status;
      if (!status.is_ok()) {  // not timed: the time columns and `best` stay empty
        out.rows.push_back(std::move(row));
        continue;
      }
      const auto it = time_iteration(costs, draft_dev, side, draft_id, int(gamma), L, draft.vocab_size, ctx.want_trace);
      const double expected = fits[central](int(gamma));
      const double rate = expected / it.step_s;
      double low = rate, high = rate;
      for (const auto& f : fits) {
        const double other = f(int(gamma)) / it.step_s;
        low = std::min(low, other), high = std::max(high, other);
      }
      if (rate > best_rate) best_rate = rate, best = out.rows.size();
      if (rate > traced_rate) traced_rate = rate, traced = it;
      row.expected_tokens_per_step = expected;
      row.t_draft_s = it.draft_s;
      row.t_transfer_s = it.transfer_s;
      row.t_verify_s = it.verify_s;
      row.step_s = it.step_s;
      row.tokens_per_s = rate;
      row.ar_tokens_per_s = 1 / ar_s;
      row.speedup = rate * ar_s;
      row.tokens_per_s_low = low;
      row.tokens_per_s_high = high;
      row.acceptance = acceptance_cell;
      out.rows.push_back(std::move(row));
    }
    if (best) out.rows[*best].best = true;
    // The best window at the largest searched may only be the edge of the search.
    if (best && gammas.size() > 1 && *best + 1 == out.rows.size() && *best >= first)
      at_limit.push_back(fmt::format("context {}: the best gamma, {}, is the largest searched (search further, e.g. "
                                     "--gamma 1-{})", L, gammas.back(), 4 * gammas.back()));
  }
  const std::string where =
      side.whole_placement ? fmt::format("the system's placement ({} stage(s) of {} device(s); its steps on the system "
                                         "timeline, one task here)",
                                         system.stages.size(), system.stages.front().devices.size())
                           : tdev.name;
  r.footer = fmt::format("draft {} on {}, target {} on {}; {}; engine {}; {} engine evaluations", draft.name, ddev.name,
                         target.name, where, acceptance_note, engine, costs.evaluations() + costs.system_steps());
  for (const auto& note : at_limit) r.footer += "\nat the search limit: " + note;
  r.meta.emplace_back("search_limits", at_limit);
  if (traced.graph) r.write_trace = sim::chrome_trace_writer(traced.graph, traced.run);
  return out;
}

}  // namespace

const TypedScenario<Params, Row>& scenario() {
  static const TypedScenario<Params, Row> typed(
      {"chain-sd",
       "Chain SD with the draft on one device of a system and the target on another, on the system timeline",
       {},
       nullptr,
       "chain-sd",
       {"hw", "model", "context"},
       {"model", "context"},
       ""},  // no plot script
      ParamBindings<Params>()
          .add(param::system(""), &Params::system)
          .add(param::text("draft", "", "draft model (configs/models), MODEL@FORMAT for quantised weights"),
               &Params::draft)
          .add(param::draft_device(), &Params::draft_device)
          .add(param::text("target-device", "",
                           "device running the whole target (default: the system's target placement; a pipelined or "
                           "tensor-parallel one verifies through the system step)"),
               &Params::target_device)
          .add(param::integers("gamma", "1-8", 1, 64, "tokens", "speculation windows (draft tokens per iteration)"),
               &Params::gamma)
          .add(param::optional_real("alpha", 1e-6, 1 - 1e-6, "",
                                    "per-token acceptance (independent; 0.7 when no --acceptance)"),
               &Params::alpha)
          .add(param::acceptance_band("", " instead of --alpha: expected tokens from its fits' chains"),
               &Params::acceptance)
          .add(param::choice("engine", "roofline", {"roofline", "sim", "sim-clocked"}, "latency engine for every device"),
               &Params::engine),
      ColumnBindings<Row>()
          .add("system", &Row::system)
          .add("draft_device", &Row::draft_device)
          .add("target_device", &Row::target_device)
          .add("context", &Row::context)
          .add("gamma", &Row::gamma)
          .add("status", &Row::status)
          .add("expected_tokens_per_step", &Row::expected_tokens_per_step)
          .add("t_draft_s", &Row::t_draft_s)
          .add("t_transfer_s", &Row::t_transfer_s)
          .add("t_verify_s", &Row::t_verify_s)
          .add("step_s", &Row::step_s)
          .add("tokens_per_s", &Row::tokens_per_s)
          .add("ar_tokens_per_s", &Row::ar_tokens_per_s)
          .add("speedup", &Row::speedup)
          .add("tokens_per_s_low", &Row::tokens_per_s_low)
          .add("tokens_per_s_high", &Row::tokens_per_s_high)
          .add("acceptance", &Row::acceptance)
          .add("best", std::function<ScenarioCell(const Row&)>([](const Row& r) { return ScenarioCell(std::string(r.best ? "*" : "")); })),
      run_chain_sd);
  return typed;
}

namespace {
// Registers the scenario when the program starts (the registry lists it before any call).
const auto& chain_sd_registration = scenario();
}  // namespace

}  // namespace search::chain_sd
