#include "search/plan/plan_context_mix.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>

namespace search {

std::vector<PlanCandidate> mix_contexts(const std::vector<std::vector<PlanCandidate>>& per_context,
                                        const std::vector<long long>& contexts, const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights) total += w;
  if (per_context.size() == 1) {
    std::vector<PlanCandidate> out = per_context.front();
    for (auto& c : out)
      if (c.ok()) c.per_context = {{contexts.front(), 1.0, c.tbt_s, c.ttft_s}};
    return out;
  }
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
      mixed.per_context.push_back({contexts[k], w, c->tbt_s, c->ttft_s});
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
      mixed.per_context.clear();
      mixed.parameters.clear();
    }
    out.push_back(std::move(mixed));
  }
  return out;
}

double mix_percentile(const std::vector<PlanCandidate::ContextTimes>& times, double PlanCandidate::ContextTimes::*member,
                      double p, long long& context) {
  std::vector<const PlanCandidate::ContextTimes*> sorted;
  for (const auto& t : times) sorted.push_back(&t);
  std::stable_sort(sorted.begin(), sorted.end(), [member](const auto* a, const auto* b) { return a->*member < b->*member; });
  // The shares sum to 1 up to rounding: a tolerance keeps p = 100 (and p = a share's exact edge)
  // on the context it names.
  constexpr double kShareRounding = 1e-9;
  double cumulative = 0;
  for (const auto* t : sorted) {
    cumulative += t->weight;
    if (cumulative + kShareRounding >= p / 100) {
      context = t->context;
      return t->*member;
    }
  }
  context = sorted.back()->context;
  return sorted.back()->*member;
}

}  // namespace search
