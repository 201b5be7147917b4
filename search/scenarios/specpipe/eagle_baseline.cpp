// The EAGLE-3 baseline in the pipeline (specpipe_scenario.hpp): the head on the last stage,
// paper 004's positional acceptance and EAGLE's public default tree.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "search/scenarios/eagle_dispatcher/eagle_costs.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"
#include "search/scenarios/specpipe/specpipe_scenario.hpp"
#include "search/trees/positional_trees.hpp"
#include "sim/system/collective_choice.hpp"

namespace search::specpipe {

namespace {

// The first pair of consecutive stages whose devices are in different hosts (NCCL would reach
// one from the other over the network), if any.
std::optional<std::pair<int, int>> stages_across_hosts(const models::SystemSpec& system) {
  for (std::size_t k = 0; k + 1 < system.stages.size(); ++k)
    if (sim::nccl_transport(system, system.stages[k].devices.front(), system.stages[k + 1].devices.front()) ==
        sim::Transport::net_socket)
      return std::make_pair(int(k), int(k + 1));
  return std::nullopt;
}

}  // namespace

ScenarioResult run_eagle_pipeline(const TimingSetup& setup, const StageTimer& timer, const std::string& tree_name,
                                  const TokenTree& tree, const PositionalAcceptance& acceptance,
                                  long long tokens, std::uint64_t seed, int requests) {
  ScenarioResult r;
  r.method = kEagleBaselineMethod;
  r.tree = tree_name;
  r.batch = requests;
  EaglePipelineParams p;
  p.stages = timer.stages();
  p.requests = requests;
  p.tokens = tokens;
  p.seed = seed;
  std::vector<int> last_layers;
  for (const auto& st : setup.system.stages) last_layers.push_back(st.last_layer);
  p.hop_payload_factor = hop_payload_factors(last_layers, eagle3_feature_layers(setup.target.layers));
  r.plan = plan_eagle_pipeline(p, tree, acceptance);
  r.w = tree.verification_length();
  r.k = tree.depth();
  r.timed = time_plan(r.plan, setup, timer);
  set_tree_rates(r);
  return r;
}

std::optional<ScenarioResult> run_eagle_baseline(const models::ConfigRegistry& reg, const TimingSetup& setup,
                                                 long long tokens, std::uint64_t seed, int requests,
                                                 std::string* why) {
  const auto models = paper004_models(reg.dir());
  if (std::find(models.begin(), models.end(), setup.target.name) == models.end()) {
    if (why) *why = fmt::format("no EAGLE-3 acceptance model for {} (paper 004 covers {})", setup.target.name,
                                fmt::join(models, ", "));
    return std::nullopt;
  }
  TimingSetup s = setup;
  if (auto it = setup.system.method_stacks.find(kEagleBaselineMethod); it != setup.system.method_stacks.end()) {
    s.system = models::with_target_stack(setup.system, it->second);
    if (it->second.single_host_process)
      if (const auto split = stages_across_hosts(s.system)) {
        if (why)
          *why = fmt::format("its stack {} drives every GPU from one process, and stages {} and {} are in different hosts",
                             it->second.name, split->first, split->second);
        return std::nullopt;
      }
  }
  s.head = eagle_head_for_target(reg.algorithm(kEagleBaselineHead), setup.target);
  const StageTimer timer(s);
  if (const auto full = eagle_baseline_memory_shortfall(timer, tokens, requests)) {
    if (why) *why = *full;
    return std::nullopt;
  }
  const PositionalAcceptance acc = paper004_acceptance(reg.dir(), setup.target.name);
  using D = EagleDefaultTree;
  const TokenTree tree = pruned_tree(acc, D::draft_nodes, D::depth, D::top_k);
  return run_eagle_pipeline(s, timer, fmt::format("default-{}", D::total_tokens), tree, acc, tokens, seed, requests);
}

}  // namespace search::specpipe
