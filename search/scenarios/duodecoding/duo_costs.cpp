#include "search/scenarios/duodecoding/duo_costs.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "models/config_error.hpp"
#include "models/engine_registry.hpp"
#include "models/operator_graph.hpp"

namespace search::duodecoding {

DuoPlacement resolve_placement(const models::SystemSpec& system, const models::ModelSpec& target,
                               const std::string& draft_device) {
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
      for (const auto& d : p.system.devices) names += (names.empty() ? "" : ", ") + d.name;
      throw models::InputError(fmt::format("--draft-device: system '{}' has no device '{}' (devices: {})",
                                           system.name, draft_device, names));
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
    if (!p.system.link_between(p.draft_device, p.target_device) || !p.system.link_between(p.target_device, p.draft_device))
      throw models::InputError(fmt::format("{}: links: no link joins the draft's device '{}' and the target's '{}'",
                                           system.source_file, a, b));
  }
  return p;
}

DuoCosts DuoCosts::from_engines(const DuoPlacement& placement, const models::ModelSpec& target,
                                const models::ModelSpec& draft, const std::string& engine, long long prompt,
                                long long context) {
  if (context < 0) throw models::InputError(fmt::format("--context: expected >= 0, got {}", context));
  if (prompt < 0) throw models::InputError(fmt::format("--prompt: expected >= 0, got {}", prompt));
  const auto& thw = placement.system.devices[std::size_t(placement.target_device)].hardware;
  const auto& dhw = placement.system.devices[std::size_t(placement.draft_device)].hardware;
  std::shared_ptr<const models::LatencyEngine> te = models::make_engine(engine, thw);
  std::shared_ptr<const models::LatencyEngine> de = models::make_engine(engine, dhw);
  const bool t_head = thw.verify_includes_lm_head;
  DuoCosts c;
  c.context_ = context;
  c.prompt_ = prompt;
  // A chain of x new tokens attends causally (no tree branches), in decode and in prefill.
  c.target_ = [te, target, t_head](int tokens, long long ctx) {
    models::StepShape s;
    s.tokens = tokens;
    s.context = ctx;
    s.mask = models::MaskKind::causal;
    s.include_lm_head = t_head;
    return te->step(models::build_verify_graph(target, s)).seconds;
  };
  // The draft samples from its own logits at every pass, so its LM head always runs.
  c.draft_ = [de, draft](int tokens, long long ctx) {
    models::StepShape s;
    s.tokens = tokens;
    s.context = ctx;
    s.mask = models::MaskKind::causal;
    s.include_lm_head = true;
    return de->step(models::build_verify_graph(draft, s)).seconds;
  };
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

double DuoCosts::cached(const Cost& f, std::map<std::pair<int, long long>, double>& memo, int tokens,
                        long long ctx) const {
  const auto key = std::make_pair(tokens, ctx);
  auto it = memo.find(key);
  if (it != memo.end()) return it->second;
  const double v = f(tokens, ctx);
  memo.emplace(key, v);
  return v;
}

double DuoCosts::target_forward_s(int x) const { return cached(target_, target_memo_, x, context_); }
double DuoCosts::draft_pass_s() const { return cached(draft_, draft_memo_, 1, context_); }
double DuoCosts::target_forward_at(int x, long long generated) const {
  return cached(target_, target_memo_, x, decode_context(generated));
}
double DuoCosts::draft_pass_at(long long generated) const {
  return cached(draft_, draft_memo_, 1, decode_context(generated));
}
double DuoCosts::target_prefill_s(int tokens) const { return cached(target_, target_memo_, tokens, 0); }
double DuoCosts::draft_prefill_s(int tokens) const { return cached(draft_, draft_memo_, tokens, 0); }

int hardware_aware_budget(const DuoCosts& costs) {
  return std::max(1, int(std::floor(costs.cost_coefficient())));
}

}  // namespace search::duodecoding
