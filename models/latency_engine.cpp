#include "models/latency_engine.hpp"

#include "models/config_error.hpp"
#include "models/drafts/draft_builder.hpp"

namespace models {

StepGraph verify_graph(const LatencyEngine& engine, const Workload& w, int x, long long context) {
  StepShape shape;
  shape.tokens = x;
  shape.context = context;
  shape.batch = w.batch;
  shape.mask = x > 1 ? MaskKind::tree : MaskKind::causal;
  shape.include_lm_head = engine.hardware().verify_includes_lm_head;
  StepGraph g = build_verify_graph(w.target, shape);
  g.sampled = w.sampled;
  return g;
}

double t_verify(const LatencyEngine& engine, const Workload& w, int x, long long context) {
  return engine.step(verify_graph(engine, w, x, context)).seconds;
}

double t_draft_passes(const LatencyEngine& engine, const Workload& w,
                      const std::vector<int>& pass_widths, long long context) {
  if (!w.algorithm) throw InputError("t_draft: no draft algorithm given");
  // A head drafts inside the step the target's verify carries (as sim::SystemCosts::head_pass_s):
  // its passes pay no per-step host work of their own. A standalone draft model's pass is a step.
  const bool head = draft_builder(w.algorithm->draft.kind, w.algorithm->name).is_attached_head();
  double total = 0;
  for (int width : pass_widths) {
    StepGraph g = build_draft_pass_graph(*w.algorithm, w.target, width, context, w.batch);
    if (head) g.step_work = false;
    total += engine.step(g).seconds;
  }
  return total;
}

double t_draft(const LatencyEngine& engine, const Workload& w, int x, long long context) {
  if (!w.algorithm) return 0;
  return t_draft_passes(engine, w, w.algorithm->draft_pass_widths(x), context);
}

}  // namespace models
