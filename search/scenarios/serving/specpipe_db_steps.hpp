#pragma once
// SpecPipe-DB (paper 002 §4) as a serving method (`serve --method specpipe-db` on a pipeline):
// what one pipeline step of every running request costs and what each request gets from it.
//
// The per-request statistics come from SpecPipe's own plan (pipeline_plan.hpp: Algorithm 1 over
// the draft's acceptance, the specpipe scenario's default source), run once at the tree width w
// and candidates k: the share of verified levels that hold the target's token (the hit rate each
// request draws from, independently per check) and the tokens one request keeps in each stage and
// drafts per step, averaged over its hits, flushes and refills. A step of n requests at context c
// is then, on the specpipe scenario's StageTimer (the system's one cost layer): the slowest stage
// over n requests' tokens there (with the stack's ragged-batch overhead for two or more, as the
// scenario's timeline charges it) and its activations' send to the next, or the draft's pass over
// n levels with their send to stage 0 when that is longer (added to its stage's time where the
// draft shares that stage's GPU), then the prune (paper 002 §4.2).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/config_registry.hpp"
#include "models/model_spec.hpp"
#include "search/scenarios/serving/serving_simulation.hpp"

namespace search::serving {

// Tokens of SpecPipe's plan the per-request statistics are taken over (hit rate within about
// +-0.01 at paper 002's hit rates).
constexpr long long kSpecPipeDbPlanTokens = 2000;

struct SpecPipeDbSteps {
  PipelinedTrees trees;                                  // ServingConfig::specpipe
  std::function<double(int batch, long long context)> step_s;  // one pipeline step of `batch` requests
  std::vector<double> stage_tokens;                      // per stage: one request's mean tokens there
  double draft_tokens = 0;                               // one request's mean draft tokens a step
  double prune_s = 0;
  std::string draft, acceptance, borrowed;               // the draft's name, its acceptance's words
  int draft_device = -1;
};

// InputError when the system is not a pipeline of single-device stages, places no draft, or the
// draft cannot draft for the target.
SpecPipeDbSteps specpipe_db_steps(const models::ConfigRegistry& reg, const std::string& system,
                                  const models::ModelSpec& target, const std::string& draft, const std::string& engine,
                                  int width, int candidates, std::uint64_t seed);

}  // namespace search::serving
