#pragma once
// EAGLE-3 in a pipeline (paper 002 §4.2's third baseline): the head is trained on the target's
// own hidden states, so it cannot draft ahead of the pipeline. Per iteration a static tree of the
// EAGLE head passes through every stage; the last stage verifies it (greedy) and runs the head,
// which drafts the next tree level by level from the accepted tokens' features; the new tree
// goes back to stage 0. EAGLE-3 fuses the hidden states of three target layers (layers 2, L/2
// and L-3 in the reference implementations, e.g. SGLang's default capture layers), so the
// features of the layers that live on earlier stages travel down the pipeline with the
// embeddings (hop_payload_factors).
//
// Acceptance: the positional model of paper 004 (search/acceptance/positional_acceptance.hpp),
// EAGLE-3 chain TPCs of the target's row; a request accepts a tree node when the target's token
// at each depth is the rank drawn from the model's per-depth geometric rank distribution and that
// child is in the tree.
#include <cstdint>
#include <vector>

#include "search/acceptance/positional_acceptance.hpp"
#include "search/scenarios/specpipe/pipeline_plan.hpp"
#include "search/trees/token_tree.hpp"

namespace search::specpipe {

// The three target layers whose hidden states an EAGLE-3 head fuses, for a target of `layers`.
std::vector<int> eagle3_feature_layers(int layers);

// Per hop i -> i + 1 of a pipeline whose stage i ends at layer last_layer[i]: 1 (the hidden
// state) plus the fused feature layers computed on stages <= i that the last stage needs.
std::vector<double> hop_payload_factors(const std::vector<int>& stage_last_layer, const std::vector<int>& feature_layers);

// Draft tokens a request accepts in one iteration of `tree` under `model` (0..tree.depth()).
int draw_accepted(const TokenTree& tree, const PositionalAcceptance& model, std::mt19937_64& rng);

struct EaglePipelineParams {
  int stages = 8;
  int requests = 1;
  long long tokens = 1000;
  std::uint64_t seed = 1;
  std::vector<double> hop_payload_factor;
};

PipelinePlan plan_eagle_pipeline(const EaglePipelineParams& p, const TokenTree& tree, const PositionalAcceptance& model);

}  // namespace search::specpipe
