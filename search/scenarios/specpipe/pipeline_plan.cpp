#include "search/scenarios/specpipe/pipeline_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/config_error.hpp"

namespace search::specpipe {

namespace {

void check_common(int stages, long long tokens) {
  if (stages < 1) throw models::InputError(fmt::format("specpipe: {} pipeline stages (need >= 1)", stages));
  if (tokens < 1) throw models::InputError(fmt::format("--tokens: {} (must be >= 1)", tokens));
}

StepPlan empty_step(int m) {
  StepPlan s;
  s.compute.assign(std::size_t(m), 0);
  s.send.assign(std::size_t(m > 0 ? m - 1 : 0), 0);
  return s;
}

}  // namespace

PipelinePlan plan_specpipe(const SpecPipeParams& p, const RankModel& ranks) {
  check_common(p.stages, p.tokens);
  SpeculativeTree tree(p.width, p.candidates, ranks);
  std::mt19937_64 rng(p.seed);
  const int m = p.stages;
  PipelinePlan plan;
  plan.method = "specpipe";
  plan.stages = m;
  // slot[i]: the depth of the tree level stage i holds (-1: empty). Decoding starts with the
  // prompt's last token (depth 0, the tree's root) entering stage 0.
  std::vector<long long> slot(std::size_t(m), -1);
  slot[0] = 0;
  FirstInput first = FirstInput::verified_token;
  while (plan.tokens < p.tokens + 1) {
    StepPlan st = empty_step(m);
    for (int i = 0; i < m; ++i) st.compute[std::size_t(i)] = slot[std::size_t(i)] >= 0 ? tree.size(slot[std::size_t(i)]) : 0;
    st.first = st.compute[0] > 0 ? first : FirstInput::none;
    // The draft appends one level during the step, from the tree as pruned at the previous step.
    int bottom = 0;
    const long long pending = tree.append_level(rng, &bottom);
    if (bottom > 0) st.draft_passes = {bottom};
    st.level_waits_for_verify = true;
    const long long last = slot[std::size_t(m - 1)];
    if (last >= 0) {
      // The last stage holds the verified token at depth `last` and emits the next one.
      const long long e = last + 1;
      st.emitted = 1;
      st.verify = st.prune = true;
      ++plan.tokens;
      ++plan.checks;
      st.hit = tree.verify(e);
      plan.hits += st.hit ? 1 : 0;
      st.flush = !st.hit;
      tree.drop_through(last);
    }
    if (st.flush) {
      // Every level was pruned; the emitted token re-enters stage 0 alone (Algorithm 1 line 9).
      std::fill(slot.begin(), slot.end(), -1);
      slot[0] = tree.deepest();
      first = FirstInput::verified_token;
    } else {
      for (int i = m - 1; i > 0; --i) slot[std::size_t(i)] = slot[std::size_t(i - 1)];
      for (int i = 0; i + 1 < m; ++i)
        st.send[std::size_t(i)] = slot[std::size_t(i + 1)] >= 0 ? tree.size(slot[std::size_t(i + 1)]) : 0;
      slot[0] = pending;
      st.level_tokens = tree.size(pending);
      first = FirstInput::draft_previous;
    }
    plan.steps.push_back(std::move(st));
  }
  return plan;
}

PipelinePlan plan_plain_pp(int stages, long long tokens) {
  check_common(stages, tokens);
  PipelinePlan plan;
  plan.method = "pp";
  plan.stages = stages;
  for (long long s = 0; plan.tokens < tokens + 1; ++s) {
    StepPlan st = empty_step(stages);
    const int at = int(s % stages);
    st.compute[std::size_t(at)] = 1;
    if (at == 0) st.first = FirstInput::verified_token;
    if (at + 1 < stages) st.send[std::size_t(at)] = 1;
    if (at == stages - 1) {
      st.emitted = 1;
      ++plan.tokens;
    }
    plan.steps.push_back(std::move(st));
  }
  return plan;
}

PipelinePlan plan_static_tree(int stages, const std::vector<int>& branching, long long tokens, const RankModel& ranks,
                              std::uint64_t seed) {
  check_common(stages, tokens);
  if (branching.empty()) throw models::InputError("static tree: no levels");
  std::vector<int> level_nodes;  // nodes per level below the root
  int nodes = 1;
  for (int b : branching) {
    if (b < 1) throw models::InputError(fmt::format("static tree: branching {} (must be >= 1)", b));
    if (b > ranks.max_k()) throw models::InputError(fmt::format("static tree: branching {} exceeds {} candidates", b, ranks.max_k()));
    nodes *= b;
    level_nodes.push_back(nodes);
  }
  const int x = 1 + [&] { int s = 0; for (int n : level_nodes) s += n; return s; }();
  std::mt19937_64 rng(seed);
  PipelinePlan plan;
  plan.method = "static-tree";
  plan.stages = stages;
  // The first iteration's tree has the prompt's last token as its root; later trees are rooted at
  // the bonus token of the previous iteration. The draft extends the tree one level per pass.
  std::vector<int> passes{1};
  for (std::size_t d = 0; d + 1 < level_nodes.size(); ++d) passes.push_back(level_nodes[d]);
  for (long long s = 0; plan.tokens < tokens + 1; ++s) {
    StepPlan st = empty_step(stages);
    const int at = int(s % stages);
    st.compute[std::size_t(at)] = x;
    if (at == 0) {
      st.first = FirstInput::draft_now;
      st.draft_passes = passes;
      st.level_tokens = x;
    }
    if (at + 1 < stages) st.send[std::size_t(at)] = x;
    if (at == stages - 1) {
      // Accepted depth: the target's token at depth d must rank within the branching b_d.
      int accepted = 0;
      for (int b : branching) {
        if (ranks.draw(rng) > b) break;
        ++accepted;
      }
      st.emitted = accepted + 1;
      st.verify = st.prune = true;
      st.hit = accepted == int(branching.size());
      ++plan.checks;
      plan.hits += accepted;  // hits counts accepted draft tokens here (see hit_rate below)
      plan.tokens += st.emitted;
    }
    plan.steps.push_back(std::move(st));
  }
  // For a static tree the "hit rate" is the per-depth acceptance: accepted / draft depths tried.
  long long tried = 0;
  for (const auto& st : plan.steps)
    if (st.emitted > 0) tried += std::min<long long>(st.emitted, (long long)branching.size());
  plan.checks = tried;
  return plan;
}

double static_tree_aat(const std::vector<int>& branching, const HitCurve& curve) {
  double aat = 1, prod = 1;
  for (int b : branching) {
    prod *= curve(b);
    aat += prod;
  }
  return aat;
}

}  // namespace search::specpipe
