#include "experiments/cli/window_table.hpp"

#include <fmt/format.h>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "models/config_error.hpp"
#include "search/work_bound.hpp"
#include "sim/system/system_costs.hpp"

namespace experiments {

WindowTable compute_window_table(const WindowRequest& q) {
  const WindowInputNames& n = q.names;
  const models::ConfigRegistry reg(q.config_dir.empty() ? models::ConfigRegistry::default_config_dir() : q.config_dir);
  search::require_gamma_max(n.gamma_max, q.gamma_max);
  WindowTable out;
  out.gamma_max = q.gamma_max;
  out.acceptances = window_acceptances(q.alphas, q.band, reg.dir(), n.alpha, n.acceptance);
  const bool constant_mode = !q.cost_ratios.empty();
  out.engine_mode = q.hw || !q.model.empty() || !q.draft.empty();
  if (constant_mode == out.engine_mode)
    throw models::InputError(fmt::format(
        "window: expected either {} C (constant T_v) or {}, {}, {} and {} (latencies from an engine), got {}",
        n.cost_ratio, n.hw, n.model, n.draft, n.context, constant_mode ? "both" : "neither"));
  if (out.engine_mode && q.t_verify_given)
    throw models::InputError(fmt::format("window: {} is constant mode's T_v (with {}); engine mode times T_v from {}, "
                                         "{} and {}", n.t_verify_s, n.cost_ratio, n.hw, n.model, n.context));
  out.with_placement = !q.placement.empty();
  if (constant_mode && out.with_placement)
    throw models::InputError(fmt::format("window: a draft placement ({}) needs engine mode ({}, {}, {}, {}), not {}",
                                         n.placement, n.hw, n.model, n.draft, n.context, n.cost_ratio));
  if (constant_mode) {
    for (double c : q.cost_ratios) {
      WindowCase k;
      k.cost_ratio = c;
      k.latency = search::ChainLatency::constant(c, q.t_verify_s, q.gamma_max);
      out.cases.push_back(std::move(k));
    }
  } else {
    if (!q.hw || q.model.empty() || q.draft.empty() || q.contexts.empty())
      throw models::InputError(fmt::format("window: engine mode: expected {}, {}, {} and {}, got only some of them",
                                           n.hw, n.model, n.draft, n.context));
    search::require_work_within("window", fmt::format("{} ({})", n.context, q.contexts.size()), double(q.contexts.size()),
                                search::kMaxWindowContexts, "contexts");
    for (long long L : q.contexts)
      if (L < 0 || L > kMaxContext)
        models::throw_input_error("window", n.context, fmt::format("integers in [0, {}]", kMaxContext), std::to_string(L));
    const auto w = make_workload(reg, q.model, q.draft);
    // Through a one-device deployment: its forwards are memoised like every scenario's.
    const auto device = sim::deploy_device(*q.hw, q.engine);
    const models::LatencyEngine& engine = device->engine(0);
    const auto placement = resolve_draft_placement(reg, q.placement, q.engine, q.hw->name);
    for (long long L : q.contexts) {
      require_workload_fits(*q.hw, w, L, q.gamma_max + 1);
      WindowCase k;
      k.hw = q.hw->name;
      k.model = w.target.name;
      k.draft = w.algorithm->name;
      k.engine = engine.name();
      k.draft_device = placement.device();
      k.context = L;
      k.latency = search::ChainLatency::from_engine(engine, w, L, q.gamma_max, placement);
      k.cost_ratio = k.latency.cost_ratio();
      out.cases.push_back(std::move(k));
    }
  }
  search::require_work_within("window", fmt::format("{} ({}) x acceptances ({}) x windows 0..{} ({})",
                                                    constant_mode ? n.cost_ratio : n.context, out.cases.size(),
                                                    out.acceptances.cases.size(), n.gamma_max, q.gamma_max + 1),
                              double(out.cases.size()) * double(out.acceptances.cases.size()) * double(q.gamma_max + 1),
                              search::kMaxWindowRows, "rows");
  for (std::size_t ci = 0; ci < out.cases.size(); ++ci) {
    const search::ChainLatency& lat = out.cases[ci].latency;
    for (std::size_t ai = 0; ai < out.acceptances.cases.size(); ++ai) {
      const auto& expected_tokens = out.acceptances.cases[ai].expected_tokens;
      const auto best = search::optimal_gamma(expected_tokens, lat);
      const bool at_limit = best.gamma == q.gamma_max;
      out.best_at_limit = out.best_at_limit || at_limit;
      const int first = q.map ? best.gamma : 0, last = q.map ? best.gamma : q.gamma_max;
      for (int g = first; g <= last; ++g) {
        WindowRow r;
        r.case_index = ci;
        r.acceptance_index = ai;
        r.gamma = g;
        r.expected_tokens = expected_tokens(g);
        r.t_draft_s = lat.draft_s(g);
        r.t_verify_s = lat.verify_s(g);
        r.t_iteration_s = lat.iteration_s(g);
        r.tokens_per_s = r.expected_tokens / r.t_iteration_s;
        r.speedup = r.tokens_per_s * lat.iteration_s(0);
        r.best = g == best.gamma;
        r.at_search_limit = at_limit;
        out.rows.push_back(r);
      }
    }
  }
  return out;
}

}  // namespace experiments
