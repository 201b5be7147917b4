// The EAGLE-3 baseline in the pipeline (specpipe_scenario.hpp): the head on the last stage,
// paper 004's positional acceptance and EAGLE's public default tree.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "search/scenarios/eagle_dispatcher/eagle_costs.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"
#include "search/scenarios/specpipe/specpipe_scenario.hpp"
#include "search/trees/positional_trees.hpp"

namespace search::specpipe {

ScenarioResult run_eagle_pipeline(const TimingSetup& setup, const StageTimer& timer, const std::string& tree_name,
                                  const TokenTree& tree, const PositionalAcceptance& acceptance,
                                  long long tokens, std::uint64_t seed, int requests) {
  ScenarioResult r;
  r.method = "pp+eagle3";
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
  const auto models = paper004_models();
  if (std::find(models.begin(), models.end(), setup.target.name) == models.end()) {
    if (why) *why = fmt::format("no EAGLE-3 acceptance model for {} (paper 004 covers {})", setup.target.name,
                                fmt::join(models, ", "));
    return std::nullopt;
  }
  TimingSetup s = setup;
  s.head = eagle_head_for_target(reg.algorithm(kEagleBaselineHead), setup.target);
  if (const auto full = eagle_baseline_memory_shortfall(s, tokens, requests)) {
    if (why) *why = *full;
    return std::nullopt;
  }
  const StageTimer timer(s);
  const PositionalAcceptance acc = paper004_acceptance(setup.target.name);
  using D = EagleDefaultTree;
  const TokenTree tree = pruned_tree(acc, D::draft_nodes, D::depth, D::top_k);
  return run_eagle_pipeline(s, timer, fmt::format("default-{}", D::total_tokens), tree, acc, tokens, seed, requests);
}

}  // namespace search::specpipe
