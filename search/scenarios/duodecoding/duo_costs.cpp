#include "search/scenarios/duodecoding/duo_costs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "models/closest_name.hpp"
#include "models/config_error.hpp"
#include "models/operator_graph.hpp"
#include "sim/system/memory_fit.hpp"
#include "sim/system/routes.hpp"
#include "sim/system/system_costs.hpp"

namespace search::duodecoding {

DuoPlacement resolve_placement(const models::SystemSpec& system, const models::ModelSpec& target,
                               const std::string& draft_device, const std::string& option) {
  DuoPlacement p;
  p.system = system;
  p.system.validate_placement(target);
  const auto& st = p.system.stages;
  if (st.size() != 1 || st.front().devices.size() != 1)
    throw models::InputError(fmt::format(
        "{}: placement.target: the DuoDecoding scenario needs the target on one device (one stage, no tensor "
        "parallelism), got {} stage(s)",
        system.source_file, st.size()));
  p.target_device = st.front().devices.front();
  if (!draft_device.empty()) {
    p.draft_device = p.system.device_index(draft_device);
    if (p.draft_device < 0) {
      std::string names;
      std::vector<std::string> known;
      for (const auto& d : p.system.devices) names += (names.empty() ? "" : ", ") + d.name, known.push_back(d.name);
      throw models::InputError(fmt::format("{}: system '{}' has no device '{}'{} (devices: {})", option, system.name,
                                           draft_device, models::did_you_mean(draft_device, known), names));
    }
  } else {
    p.draft_device = p.system.draft_device;
    if (p.draft_device < 0)
      throw models::InputError(fmt::format(
          "{}: placement.draft: the system places no draft; name a device with --draft-device", system.source_file));
  }
  if (!p.same_device()) {
    const auto& a = p.system.devices[std::size_t(p.draft_device)].name;
    const auto& b = p.system.devices[std::size_t(p.target_device)].name;
    if (!sim::has_route(p.system, p.draft_device, p.target_device) || !sim::has_route(p.system, p.target_device, p.draft_device))
      throw models::InputError(fmt::format("{}: links: no path of links joins the draft's device '{}' and the target's '{}'",
                                           system.source_file, a, b));
  }
  return p;
}

DuoCosts DuoCosts::from_engines(const DuoPlacement& placement, const models::ModelSpec& target,
                                const models::ModelSpec& draft, const std::string& engine, long long prompt,
                                long long context) {
  if (context < 0) throw models::InputError(fmt::format("--context: expected >= 0, got {}", context));
  if (prompt < 0) throw models::InputError(fmt::format("--prompt: expected >= 0, got {}", prompt));
  // One cost layer for the system (sim/system/system_costs.hpp): each device's engine with its
  // stack, every forward memoised there.
  auto costs = std::make_shared<sim::SystemCosts>(placement.system, engine);
  // Both models whole on their devices with the KV cache of the prompt (or the context), as every
  // command checks them (the deployment's memory fit): a design that does not fit is not timed.
  {
    sim::MemoryQuery q;
    q.kv_tokens = std::max(prompt, context) + 1;
    q.parameter_rule = placement.system.memory.parameter_rule;
    for (const auto& d : costs->memory(target, &draft, q, placement.draft_device))
      if (!d.fits())
        throw models::InfeasibleError(fmt::format("{}: infeasible: device {} ({}) {}", placement.system.name, d.device,
                                             d.roles, sim::fit_status(d)));
  }
  const int target_id = costs->add_model(target), draft_id = costs->add_model(draft);
  const int tdev = placement.target_device, ddev = placement.draft_device;
  const bool t_head = placement.system.devices[std::size_t(tdev)].hardware.verify_includes_lm_head;
  DuoCosts c;
  c.context_ = context;
  c.prompt_ = prompt;
  c.transfer_ = [costs](int from, int to, double bytes) { return costs->transfer_s(from, to, bytes); };
  // A chain of x new tokens attends causally (no tree branches), in decode and in prefill.
  c.target_ = [costs, tdev, target_id, t_head](int tokens, long long ctx) {
    return costs->forward_s(tdev, target_id, {tokens, ctx, 1, models::MaskKind::causal, t_head});
  };
  // The draft samples from its own logits at every pass, so its LM head always runs.
  c.draft_ = [costs, ddev, draft_id](int tokens, long long ctx) {
    return costs->forward_s(ddev, draft_id, {tokens, ctx, 1, models::MaskKind::causal, true});
  };
  // A shared GPU: both models' streams on it at once. Kinds without a multi-stream model (CPU,
  // FPGA) keep one FIFO resource in run_plan: concurrent_s would only give the same series.
  const auto& thw = placement.system.devices[std::size_t(tdev)].hardware;
  if (placement.same_device() && thw.concurrent_streams()) {
    c.together_ = [costs, tdev, target_id, draft_id, t_head](int x, int passes, long long ctx) {
      const sim::Work t{target_id, {x, ctx, 1, models::MaskKind::causal, t_head}, 1};
      const sim::Work d{draft_id, {1, ctx, 1, models::MaskKind::causal, true}, passes};
      const auto both = costs->concurrent_s(tdev, {t, d});
      return std::make_pair(both[0] / costs->concurrent_s(tdev, {t})[0], both[1] / costs->concurrent_s(tdev, {d})[0]);
    };
  }
  return c;
}

DuoCosts DuoCosts::constant(double target_forward_s, double draft_pass_s) {
  if (!(target_forward_s > 0) || !(draft_pass_s > 0))
    throw models::InputError(fmt::format("constant costs: expected positive times, got target {} s, draft {} s",
                                         target_forward_s, draft_pass_s));
  DuoCosts c;
  c.target_ = [target_forward_s](int, long long) { return target_forward_s; };
  c.draft_ = [draft_pass_s](int, long long) { return draft_pass_s; };
  return c;
}

double DuoCosts::transfer_s(int from, int to, double bytes) const {
  if (!transfer_) throw std::logic_error("DuoCosts::transfer_s: constant costs have no system to route through");
  return transfer_(from, to, bytes);
}

double DuoCosts::target_forward_s(int x) const { return target_(x, context_); }
double DuoCosts::draft_pass_s() const { return draft_(1, context_); }
double DuoCosts::target_forward_at(int x, long long generated) const { return target_(x, decode_context(generated)); }
double DuoCosts::draft_pass_at(long long generated) const { return draft_(1, decode_context(generated)); }
std::pair<double, double> DuoCosts::co_located_at(int x, int passes, long long generated) const {
  if (!together_) throw models::InputError("DuoDecoding: co-located costs asked of a placement on two devices");
  if (passes < 1) return {target_forward_at(x, generated), 0.0};  // no partner stream: the target alone
  const auto [t_slow, d_slow] = together_(x, passes, decode_context(generated));
  return {target_forward_at(x, generated) * t_slow, passes * draft_pass_at(generated) * d_slow};
}
double DuoCosts::target_prefill_s(int tokens) const { return target_(tokens, 0); }
double DuoCosts::draft_prefill_s(int tokens) const { return draft_(tokens, 0); }

int hardware_aware_budget(const DuoCosts& costs) {
  return std::max(1, int(std::floor(costs.cost_coefficient())));
}

}  // namespace search::duodecoding
