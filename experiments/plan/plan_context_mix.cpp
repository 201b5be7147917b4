#include "experiments/plan/plan_context_mix.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>

namespace experiments {

std::vector<PlanCandidate> mix_contexts(const std::vector<std::vector<PlanCandidate>>& per_context,
                                        const std::vector<long long>& contexts, const std::vector<double>& weights) {
  if (per_context.size() == 1) return per_context.front();
  double total = 0;
  for (double w : weights) total += w;
  std::vector<PlanCandidate> out;
  for (const auto& first : per_context.front()) {
    PlanCandidate mixed = first;
    mixed.tbt_s = mixed.tbt_low_s = mixed.tbt_high_s = mixed.ttft_s = 0;
    std::vector<std::string> params;
    bool same_params = true;
    for (std::size_t k = 0; k < per_context.size(); ++k) {
      const PlanCandidate* c = nullptr;
      for (const auto& o : per_context[k])
        if (o.scheme == first.scheme && o.placement == first.placement) c = &o;
      if (!c) {
        mixed.status = fmt::format("not applicable at context {}", contexts[k]);
        break;
      }
      if (!c->ok()) {
        // What does not apply at the first context applies at none: no context to name.
        const bool everywhere = k == 0 && c->status.rfind("not applicable", 0) == 0;
        mixed.status = everywhere ? c->status : fmt::format("{} (at context {})", c->status, contexts[k]);
        break;
      }
      const double w = weights[k] / total;
      mixed.tbt_s += w * c->tbt_s;
      mixed.tbt_low_s += w * c->tbt_low_s;
      mixed.tbt_high_s += w * c->tbt_high_s;
      mixed.ttft_s += w * c->ttft_s;
      if (c->memory_checked && (k == 0 || c->min_free_bytes < mixed.min_free_bytes)) {
        mixed.min_free_bytes = c->min_free_bytes;
        mixed.fullest_device = c->fullest_device;
      }
      params.push_back(fmt::format("{} at {}", c->parameters, contexts[k]));
      same_params = same_params && c->parameters == first.parameters;
    }
    if (mixed.ok()) {
      if (!same_params) mixed.parameters = fmt::format("{}", fmt::join(params, "; "));
      mixed.why = fmt::format("mean over contexts {} weighted {} (at {}: {})", fmt::join(contexts, ", "),
                              fmt::join(weights, ":"), contexts.front(), first.why);
      mixed.reproduce = first.reproduce.empty() ? "" : first.reproduce + " (first context)";
    } else {
      // Not timed over the mix: the first context's parameters would read as its choice.
      mixed.tbt_s = mixed.tbt_low_s = mixed.tbt_high_s = mixed.ttft_s = 0;
      mixed.parameters.clear();
    }
    out.push_back(std::move(mixed));
  }
  return out;
}

}  // namespace experiments
