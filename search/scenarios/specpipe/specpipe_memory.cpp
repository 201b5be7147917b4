// Memory checks of the SpecPipe runs and the EAGLE-3 baseline (specpipe_timeline.hpp,
// specpipe_scenario.hpp): every device's weights, KV cache and activations against its memory.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "models/config_error.hpp"
#include "search/scenarios/specpipe/specpipe_scenario.hpp"
#include "sim/system/system_costs.hpp"

namespace search::specpipe {

std::vector<sim::DeviceMemory> check_memory(const StageTimer& timer, int width, int requests) {
  const TimingSetup& setup = timer.setup();
  sim::MemoryQuery q;
  q.step_tokens = width;
  q.kv_tokens = setup.system.memory.kv_tokens > 0 ? setup.system.memory.kv_tokens : setup.context + width;
  if (setup.system.memory.kv_tokens > 0) {
    const long long need = (long long)requests * (setup.context + width);
    if (need > setup.system.memory.kv_tokens)
      throw models::InfeasibleError(fmt::format("{}: infeasible: {} requests x (context {} + {} tree tokens) = {} KV slots exceed "
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
  auto mem = timer.costs().memory(setup.target, setup.draft ? &*setup.draft : nullptr, q);
  for (const auto& d : mem)
    if (!d.fits())
      throw models::InfeasibleError(fmt::format("{}: infeasible: device {} ({}) {}", setup.system.name, d.device, d.roles,
                                           sim::fit_status(d)));
  return mem;
}

std::optional<std::string> eagle_baseline_memory_shortfall(const StageTimer& timer, long long tokens, int requests) {
  const TimingSetup& s = timer.setup();
  sim::MemoryQuery q;
  q.batch = requests;
  const int largest_tree = EagleDefaultTree::total_tokens;  // draft nodes + the root
  q.kv_tokens = s.context + tokens + largest_tree;
  q.step_tokens = largest_tree;
  q.lm_head_tokens = (long long)requests * largest_tree;  // the target verifies every tree token
  q.parameter_rule = s.system.memory.parameter_rule;
  sim::DraftHead head;  // whole on the last stage, which drafts from the target's last hidden state
  head.algorithm = &*s.head;
  head.device = s.system.stages.back().devices.front();
  head.role = "EAGLE-3 head";
  const auto mem = timer.costs().memory(s.target, nullptr, q, std::nullopt, head);
  for (const auto& m : mem)
    if (!m.fits()) return fmt::format("device {} ({}): {}", m.device, m.roles, sim::fit_status(m));
  return std::nullopt;
}

}  // namespace search::specpipe
