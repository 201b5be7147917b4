// Pipeline schemes (paper 002) on a system that pipelines the target over stages with a draft
// device: SpecPipe (a draft tree level per pipeline slot, best width w and candidates k of a
// small grid), SpecInfer's static tree and EAGLE-3 through the pipeline, and the plain pipeline
// under the system's other stacks (vLLM PP, TP inside a server and PP across). One run of the
// specpipe scenario times them all on the system timeline; its hits come from the scenario's
// default source: the acceptance process band fitted to paper 002's statistics for its 1B draft
// (its low / high become the candidate's band), the hit curve for other drafts.
#include <fmt/format.h>

#include <map>

#include "search/plan/plan_scheme.hpp"
#include "search/scenarios/specpipe/specpipe_entry.hpp"
#include "search/scenarios/specpipe/specpipe_scenario.hpp"
#include "models/config_error.hpp"

namespace search::specpipe_scheme {
namespace {

// The (w, k) grid searched: SpecPipe's published operating point (64, 16) and a narrower tree
// (16, 4), which wins when the draft or the links are slow relative to a stage.
const std::vector<long long> kWidths = {16, 64};
const std::vector<long long> kCandidates = {4, 16};

struct MethodName {
  const char* scheme;
  const char* placement_suffix;
};

// Each method of the scenario as plan names it; "pp" is the plain scheme's own baseline.
const std::map<std::string, MethodName>& method_names() {
  static const std::map<std::string, MethodName> m = {
      {"specpipe", {"SpecPipe", ""}},
      {"specpipe-db", {"SpecPipe-DB", ""}},
      {"pp+specinfer-tree", {"SpecInfer tree (pipeline)", ""}},
      {"pp+eagle3", {"EAGLE-3 (pipeline)", ""}},
      {"pp-vllm", {"plain", " under vLLM"}},
      {"tp-pp-vllm", {"plain", ", regrouped: TP within each device group, PP across, under vLLM"}},
  };
  return m;
}

std::vector<PlanCandidate> run_pipeline(const PlanSetup& s) {
  const char* scheme = "SpecPipe";
  if (s.single_hw || s.system.stages.size() < 2)
    return {untimed(scheme, "", "not applicable: needs a system that pipelines the target over stages")};
  if (s.system.draft_device < 0) return {untimed(scheme, "", "not applicable: the system places no draft device")};
  const std::string pipeline = fmt::format("target pipelined over {} stages", s.system.stages.size());
  const std::string draft_device = s.system.devices[std::size_t(s.system.draft_device)].name;
  const std::string last_stage_device = s.system.devices[std::size_t(s.system.stages.back().devices.back())].name;
  std::vector<std::string> drafts;
  for (const auto& d : s.drafts) drafts.push_back(model_arg(*s.configs, d));
  const auto& scenario = search::specpipe::entry::scenario();
  // The scenario's defaults: its draft when none was named, the tokens each run decodes.
  const search::specpipe::entry::Params defaults = scenario.defaults();
  if (!s.drafts_given) drafts = {defaults.draft};
  const long long run_tokens = defaults.tokens;
  std::vector<PlanCandidate> out;
  for (const auto& draft : drafts) {
    const std::string draft_name = s.configs->model(draft).name;
    search::specpipe::entry::Params p = defaults;
    p.system = s.system_arg();
    p.draft = draft;
    p.batch = {s.batch};
    p.w = kWidths;
    p.k = kCandidates;
    // SpecPipe's level-hit boundary against the other methods, once (the first draft, one request).
    p.boundary = draft == drafts.front() && s.batch == 1;
    if (!s.acceptance.empty()) p.acceptance = s.acceptance;
    const auto r = run_candidate_scenario(s, scenario, s.inputs(), p, scheme,
                                          "draft " + draft_name + " on " + draft_device + ", " + pipeline, out);
    if (!r) continue;
    // SpecPipe itself: its best (w, k) row; the other methods one row each.
    for (std::size_t i = 0; i < r->rows.size(); ++i) {
      const search::specpipe::entry::Row& row = r->rows[i];
      const std::string& method = row.method;
      const auto name = method_names().find(method);
      if (name == method_names().end()) continue;
      const bool specpipe = method == "specpipe" || method == "specpipe-db";
      if (specpipe && !row.best) continue;
      const bool plain = std::string(name->second.scheme) == "plain";
      // EAGLE-3 drafts with its own head on the last stage, not with the draft model.
      const bool eagle = method == "pp+eagle3";
      if ((plain || eagle) && draft != drafts.front()) continue;  // the same for every draft
      PlanCandidate c;
      c.scheme = name->second.scheme;
      c.placement = plain ? pipeline + name->second.placement_suffix
                    : eagle ? fmt::format("EAGLE-3 head on {} (the last stage), {}", last_stage_device, pipeline)
                            : "draft " + draft_name + " on " + draft_device + ", " + pipeline;
      c.tbt_s = c.tbt_low_s = c.tbt_high_s = row.tbt_mean_s;
      // The acceptance band's range where the scenario ran it (the best SpecPipe row, SpecInfer's tree).
      if (row.tbt_low_s) {
        c.tbt_low_s = *row.tbt_low_s;
        c.tbt_high_s = *row.tbt_high_s;
      }
      if (specpipe) c.parameters = fmt::format("w={} k={}", row.w, row.k);
      else if (plain) c.parameters = row.tree.empty() ? "vLLM, PP" : "vLLM, " + row.tree;
      else if (!row.tree.empty()) c.parameters = "tree " + row.tree;
      else if (!plain) c.parameters = "static tree";
      // Acceptance measured for another target (specpipe_acceptance.hpp) is said.
      if (!plain) c.acceptance_borrowed = row.acceptance_borrowed;
      c.acceptance = plain ? "none (no speculation)"
                     : row.acceptance.empty()
                         ? fmt::format("paper 004's positional acceptance of the target's EAGLE-3 head (hit rate {:.3f})",
                                       row.hit_rate)
                         : fmt::format("{} (hit rate {:.3f})", row.acceptance, row.hit_rate);
      c.why = plain ? fmt::format("one pass through the pipeline per token: {:.3g} ms", c.tbt_s * 1e3)
                    : fmt::format("a {:.3g} ms pipeline step, hit rate {:.3f}, flushes {:.3f} per step", row.step_s * 1e3,
                                  row.hit_rate, row.flush_rate);
      // The scenario's own command with the settings this run was given.
      c.reproduce = reproduce_command(s, "specpipe" + scenario_flags("specpipe", scenario.settings(p, {"system", "draft", "batch"})), false);
      // Each method's own run (the scenario keeps one per row when a trace is wanted).
      if (i < r->table.row_traces.size()) c.write_trace = r->table.row_traces[i];
      if (eagle) {
        c.draft_head = search::specpipe::kEagleBaselineHead;
        c.draft_device = s.system.stages.back().devices.back();
        // The baseline's own reservation (eagle_baseline_memory_shortfall): its run's tokens and
        // tree beside the context, every tree token's logits.
        using Tree = search::specpipe::EagleDefaultTree;
        c.step_tokens = Tree::total_tokens;
        c.memory_kv_tokens = s.context + run_tokens + Tree::total_tokens;
        c.memory_lm_head_tokens = (long long)s.batch * Tree::total_tokens;
      } else if (!plain) {
        c.draft_model = s.configs->model(draft);
        c.draft_device = s.system.draft_device;
      }
      if (specpipe) {
        c.step_tokens = int(row.w);
        c.memory_lm_head_tokens = s.batch;  // the last stage computes each request's verified token only
      }
      c.system_placement = method != "tp-pp-vllm";
      // The scenario's footer sentence, e.g. "level-hit boundary (...): faster than pp-vllm from a
      // level hit of 0.41, ...", on SpecPipe's own candidate.
      if (method == "specpipe" && !row.level_hit_boundary.empty())
        c.footer_note = "SpecPipe's " + row.level_hit_boundary;
      out.push_back(std::move(c));
    }
  }
  return out;
}

const PlanSchemeRegistration specpipe_registration{
    {"SpecPipe", "pipeline-parallel schemes: SpecPipe, SpecInfer's tree and EAGLE-3 through the pipeline, vLLM PP",
     40, run_pipeline}};

}  // namespace
}  // namespace search::specpipe_scheme
