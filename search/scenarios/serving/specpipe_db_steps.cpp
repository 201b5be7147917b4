#include "search/scenarios/serving/specpipe_db_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/config_error.hpp"
#include "models/draft_compatibility.hpp"
#include "search/scenarios/specpipe/pipeline_plan.hpp"
#include "search/scenarios/specpipe/specpipe_acceptance.hpp"
#include "search/scenarios/specpipe/specpipe_scenario.hpp"
#include "search/scenarios/specpipe/stage_timer.hpp"

namespace search::serving {

SpecPipeDbSteps specpipe_db_steps(const models::ConfigRegistry& reg, const std::string& system,
                                  const models::ModelSpec& target, const std::string& draft, const std::string& engine,
                                  int width, int candidates, std::uint64_t seed) {
  namespace sp = search::specpipe;
  // The context is the serving run's (each step passes its own): the setup's is unused.
  auto setup = std::make_shared<sp::TimingSetup>(
      sp::make_setup(reg, system, target.name, draft, engine, /*context=*/0, sp::TimingSetup{}.prune_s));
  if (setup->system.stages.size() < 2)
    throw models::InputError(fmt::format("serve: --method specpipe-db: system {} runs the target on one stage; "
                                         "SpecPipe-DB needs a pipeline", setup->system.name));
  models::require_can_draft(*setup->draft, target, "serve: --draft");
  auto timer = std::make_shared<const sp::StageTimer>(*setup);  // refuses tensor-parallel stages
  const int stages = timer->stages();

  sp::SpecPipeAcceptanceRequest rq;
  rq.draft = setup->draft->name;
  rq.target = target.name;
  rq.max_k = std::max(candidates, sp::kMinRankCandidates);
  rq.trace_k = candidates;
  rq.seed = seed;
  rq.config_dir = reg.dir();
  const sp::SpecPipeAcceptance acceptance = sp::specpipe_acceptance(rq);
  sp::SpecPipeParams p;
  p.stages = stages;
  p.width = width;
  p.candidates = candidates;
  p.tokens = kSpecPipeDbPlanTokens;
  p.seed = seed;
  const sp::PipelinePlan plan = sp::plan_specpipe(p, acceptance.central);

  SpecPipeDbSteps out;
  out.stage_tokens.assign(std::size_t(stages), 0.0);
  for (const auto& st : plan.steps) {
    for (int i = 0; i < stages; ++i) out.stage_tokens[std::size_t(i)] += st.compute[std::size_t(i)];
    for (int w : st.draft_passes) out.draft_tokens += w;
  }
  const double steps = double(std::max<std::size_t>(1, plan.steps.size()));
  double in_flight = 0;
  for (double& t : out.stage_tokens) {
    t /= steps;
    in_flight += t;
  }
  out.draft_tokens /= steps;
  out.trees.stages = stages;
  out.trees.hit = plan.hit_rate();
  out.trees.level_tokens = int(std::ceil(*std::max_element(out.stage_tokens.begin(), out.stage_tokens.end())));
  out.trees.tree_tokens = (long long)std::ceil(in_flight);
  out.prune_s = setup->prune_s;
  out.draft = setup->draft->name;
  out.acceptance = acceptance.description;
  out.borrowed = acceptance.borrowed;
  out.draft_device = setup->system.draft_device;

  // A step of `batch` requests: every stage computes each request's mean tokens there (rounded up)
  // and sends them on; the draft drafts each request's level beside them on its own device (or in
  // turn with the stage whose GPU it shares); the step ends with the slowest, then the prune.
  const std::vector<double> tokens = out.stage_tokens;
  const double draft_tokens = out.draft_tokens;
  const double embedding_bytes = target.hidden_size * target.activation_bytes();
  // The stage whose GPU the draft shares (-1: a device of its own): there the two take turns.
  int draft_stage = -1;
  for (int i = 0; i < stages; ++i)
    if (timer->device_of(i) == setup->system.draft_device) draft_stage = i;
  out.step_s = [setup, timer, tokens, draft_tokens, embedding_bytes, draft_stage](int batch, long long context) {
    const int stages = timer->stages();
    const int drafted = int(std::ceil(draft_tokens));
    const double draft = drafted == 0 ? 0.0
                                      : timer->draft_s(drafted, batch, context) +
                                            timer->hop_s(setup->system.draft_device, timer->device_of(0),
                                                         double(batch) * draft_tokens * sp::kDraftNodeBytes);
    double slowest = draft_stage < 0 ? draft : 0.0;
    for (int i = 0; i < stages; ++i) {
      const int per_request = int(std::ceil(tokens[std::size_t(i)]));
      double t = per_request == 0 ? 0.0 : timer->stage_s(i, per_request * batch, batch, context);
      // Requests' levels packed into one ragged batch without fused kernels: the stack's overhead,
      // as the specpipe scenario's timeline charges it (paper 002 §4.4's profile for Transformers).
      t *= timer->ragged_factor(i, batch);
      if (per_request > 0 && i + 1 < stages)
        t += timer->activation_hop_s(timer->device_of(i), timer->device_of(i + 1),
                                     double(batch) * tokens[std::size_t(i)] * embedding_bytes);
      if (i == draft_stage) t += draft;
      slowest = std::max(slowest, t);
    }
    return slowest + setup->prune_s;
  };
  return out;
}

}  // namespace search::serving
