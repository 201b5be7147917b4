#include "search/scenarios/specpipe/eagle_pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/config_error.hpp"

namespace search::specpipe {

std::vector<int> eagle3_feature_layers(int layers) {
  if (layers < 4) throw models::InputError(fmt::format("EAGLE-3 head: a target of {} layers has no low/mid/high features", layers));
  return {2, layers / 2, layers - 3};
}

std::vector<double> hop_payload_factors(const std::vector<int>& stage_last_layer, const std::vector<int>& feature_layers) {
  std::vector<double> f;
  if (stage_last_layer.empty()) return f;
  const int last_stage_first = stage_last_layer.size() > 1 ? stage_last_layer[stage_last_layer.size() - 2] + 1 : 0;
  for (std::size_t i = 0; i + 1 < stage_last_layer.size(); ++i) {
    double factor = 1.0;
    for (int l : feature_layers)
      if (l <= stage_last_layer[i] && l < last_stage_first) factor += 1.0;
    f.push_back(factor);
  }
  return f;
}

int draw_accepted(const TokenTree& tree, const PositionalAcceptance& model, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  TokenTree::Vertex at = TokenTree::kRoot;
  int accepted = 0;
  for (int d = 1; d <= tree.depth(); ++d) {
    // The target's token is the draft's rank-r candidate with P(r) = alpha_d (1 - alpha_d)^r.
    const double u = u01(rng);
    double cdf = 0;
    int r = -1;
    for (int j = 0; j < 64; ++j) {
      cdf += model.rank_probability(d, j);
      if (u < cdf) {
        r = j;
        break;
      }
    }
    if (r < 0) break;
    const auto next = tree.child(at, r);
    if (next == TokenTree::absent()) break;
    at = next;
    ++accepted;
  }
  return accepted;
}

PipelinePlan plan_eagle_pipeline(const EaglePipelineParams& p, const TokenTree& tree, const PositionalAcceptance& model) {
  TreeIterations it;
  it.method = "pp+eagle3";
  it.stages = p.stages;
  it.requests = p.requests;
  it.tree_tokens = tree.verification_length();
  // Pass 1 expands the root, pass d the nodes of depth d - 1.
  it.passes = {1};
  const auto widths = tree.widths_per_depth();
  for (std::size_t d = 0; d + 1 < widths.size(); ++d) it.passes.push_back(widths[d]);
  it.depth = tree.depth();
  it.tokens = p.tokens;
  it.seed = p.seed;
  it.draft_on_last_stage = true;
  it.hop_payload_factor = p.hop_payload_factor;
  return plan_tree_iterations(it, [&](std::mt19937_64& rng, long long) { return draw_accepted(tree, model, rng); });
}

}  // namespace search::specpipe
