#include "search/scenarios/eagle_dispatcher/eagle_dispatcher.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include <fmt/format.h>

#include "models/config_error.hpp"

namespace search {

namespace {
// Draft nodes of the full tree D<depth>-BF<branching> (the root excluded).
double full_tree_nodes(int depth, int branching) {
  double nodes = 0, level = 1;
  for (int d = 0; d < depth; ++d) nodes += (level *= branching);
  return nodes;
}
}  // namespace

std::vector<int> eagle_pass_widths(const TokenTree& tree) {
  if (tree.draft_nodes() == 0) return {};
  std::set<RankPath> parents;
  for (const RankPath& p : tree.rank_paths()) parents.insert(RankPath(p.begin(), p.end() - 1));
  std::vector<int> widths(std::size_t(tree.depth()), 0);
  for (const RankPath& p : parents) ++widths[p.size()];  // the root's pass is depth 0
  return widths;
}

namespace {
// The pruned trees' sizes searched: the ladder, its continuation up to --max-nodes, and
// --max-nodes itself; none beyond what the head can draft (the full tree of the pruned depth and
// branching).
std::vector<int> pruned_sizes(const EagleDispatchOptions& o) {
  const double most_nodes = full_tree_nodes(o.pruned_max_depth, o.pruned_max_branching);
  const int cap = int(std::min<double>(o.max_tree_nodes, most_nodes));
  std::vector<int> sizes;
  for (const auto* ladder : {&o.pruned_nodes, &o.larger_pruned_nodes})
    for (int i : *ladder)
      if (i <= cap) sizes.push_back(i);
  if (!sizes.empty() && sizes.back() < cap && cap > o.pruned_nodes.back()) sizes.push_back(cap);
  return sizes;
}
}  // namespace

int eagle_largest_candidate_nodes(const EagleDispatchOptions& o) {
  if (!o.only_trees.empty()) return 0;
  if (o.chains_only) return std::min(o.pruned_max_depth, o.max_tree_nodes);
  const auto sizes = pruned_sizes(o);
  int most = sizes.empty() ? 0 : sizes.back();
  for (int m = 1; m <= o.max_full_depth; ++m)
    for (int n = 1; n <= o.max_full_branching; ++n) {
      const double nodes = full_tree_nodes(m, n);
      if (nodes <= o.max_tree_nodes) most = std::max(most, int(nodes));
    }
  return most;
}

std::vector<EagleTreeCandidate> eagle_tree_candidates(const PositionalAcceptance& acceptance,
                                                      const EagleDispatchOptions& o) {
  std::vector<EagleTreeCandidate> out;
  std::set<std::vector<RankPath>> seen;
  auto add = [&](std::string name, TokenTree tree) {
    if (tree.draft_nodes() > o.max_tree_nodes) return;
    auto paths = tree.rank_paths();
    std::sort(paths.begin(), paths.end());
    if (!seen.insert(paths).second) return;
    EagleTreeCandidate c{std::move(name), tree, tree_tpc(acceptance, tree), eagle_pass_widths(tree)};
    out.push_back(std::move(c));
  };
  if (o.chains_only)  // chains as deep as the head drafts (--max-depth)
    for (int m = 1; m <= o.pruned_max_depth; ++m) add(fmt::format("D{}-BF1", m), full_tree(m, 1));
  else
    for (int m = 1; m <= o.max_full_depth; ++m)
      for (int n = 1; n <= o.max_full_branching; ++n) add(fmt::format("D{}-BF{}", m, n), full_tree(m, n));
  if (!o.chains_only)
    for (int i : pruned_sizes(o))
      add(fmt::format("N{}", i), pruned_tree(acceptance, i, o.pruned_max_depth, o.pruned_max_branching));
  if (!o.only_trees.empty()) {
    out.clear();
    for (const auto& name : o.only_trees) out.push_back(eagle_named_tree(acceptance, name, o));
  }
  if (out.empty()) throw models::InputError("eagle dispatcher: no candidate tree within --max-nodes");
  return out;
}

EagleTreeCandidate eagle_named_tree(const PositionalAcceptance& acceptance, const std::string& name,
                                    const EagleDispatchOptions& o) {
  int m = 0, n = 0, i = 0;
  char tail = 0;
  TokenTree tree;
  const bool full = std::sscanf(name.c_str(), "D%d-BF%d%c", &m, &n, &tail) == 2;
  if (o.chains_only && !(full && n == 1))
    throw models::InputError(fmt::format("eagle: --tree '{}': this draft proposes chains only (its top-1 token per "
                                         "step): D<m>-BF1", name));
  if (full) {
    if (m < 1 || n < 1)
      throw models::InputError(fmt::format("eagle: --tree '{}': depth and branching must be >= 1", name));
    if (m > kMaxDraftDepth || n > kMaxDraftBranching)
      throw models::InputError(fmt::format("eagle: --tree '{}': the EAGLE head drafts at most {} levels of {} candidates",
                                           name, kMaxDraftDepth, kMaxDraftBranching));
    // The deepest tree asked for (pruned_max_depth: --max-depth) bounds named trees too.
    if (m > o.pruned_max_depth)
      throw models::InputError(fmt::format("eagle: --tree '{}': deeper than --max-depth {}", name, o.pruned_max_depth));
    const double nodes = full_tree_nodes(m, n);
    if (nodes > o.max_tree_nodes)
      throw models::InputError(fmt::format("eagle: --tree '{}': {} draft nodes, more than --max-nodes {}", name,
                                           nodes, o.max_tree_nodes));
    tree = full_tree(m, n);
  } else if (std::sscanf(name.c_str(), "N%d%c", &i, &tail) == 1) {
    if (i < 1 || i > o.max_tree_nodes)
      throw models::InputError(fmt::format("eagle: --tree '{}': nodes must be in 1..--max-nodes ({})", name,
                                           o.max_tree_nodes));
    tree = pruned_tree(acceptance, i, o.pruned_max_depth, o.pruned_max_branching);
    if (tree.draft_nodes() < i)
      throw models::InputError(fmt::format("eagle: --tree '{}': the head drafts at most {} nodes ({} levels of {})",
                                           name, tree.draft_nodes(), o.pruned_max_depth, o.pruned_max_branching));
  } else {
    throw models::InputError(fmt::format("eagle: --tree '{}': expected D<m>-BF<n> or N<i>", name));
  }
  return {name, tree, tree_tpc(acceptance, tree), eagle_pass_widths(tree)};
}

double eagle_host_seconds(const models::SoftwareStack& stack, const models::HostSpec& host, int forwards,
                          double device_s, int sequences, double per_sequence_us) {
  // Sampling + bookkeeping once per decode step (per_step_host_us, and per_sequence_host_us for
  // each sequence), and a graph launch per captured forward (the paper captures each whole model
  // execution in a CUDA graph, §3.4).
  // per_sequence_us >= 0 replaces the stack's per-sequence figure.
  const double step_us = host.host_us(per_sequence_us >= 0 ? stack.step_host_us(sequences, per_sequence_us)
                                                          : stack.step_host_us(sequences));
  const double launch_s = stack.cuda_graphs ? host.host_us(stack.graph_launch_host_us) * 1e-6 : 0.0;
  const double host_s = step_us * 1e-6 + launch_s * forwards;
  // The proposer's work around each head pass (every forward but the verify), in series: a pass
  // needs the previous pass's tokens, so the GPU waits for it.
  const double proposer_s = host.host_us(stack.per_draft_pass_host_us) * 1e-6 * std::max(0, forwards - 1);
  if (!stack.host_overlaps_device) return host_s + proposer_s;
  // The GPU cannot start before the first graph is launched; the rest runs beside it.
  return launch_s + proposer_s + std::max(0.0, host_s - launch_s - device_s);
}

EagleDispatchRow evaluate_eagle_tree(const EagleCostModel& costs, const EagleTreeCandidate& c, int batch,
                                     long long context, double speculative_host_s, double sequence_host_us) {
  if (batch < 1) throw models::InputError(fmt::format("eagle dispatcher: batch must be >= 1, got {}", batch));
  if (!(speculative_host_s >= 0 && std::isfinite(speculative_host_s)))
    throw models::InputError(fmt::format("--sd-host-us: {} (must be a finite time >= 0)", speculative_host_s * 1e6));
  if (!costs.workload().algorithm) throw models::InputError("eagle dispatcher: a draft (--draft) is required");
  EagleDispatchRow r;
  r.batch = batch;
  r.tree = c.name;
  r.x = c.tree.verification_length();
  r.tpc = c.tpc;
  const EagleForwardCost v = costs.verify(r.x, batch, context);
  r.t_verify_s = v.seconds;
  r.t_wait_s = v.wait_s;
  for (int width : c.pass_widths) {
    const EagleForwardCost d = costs.draft_pass(width, batch, context);
    r.t_draft_s += d.seconds;
    r.t_wait_s += d.wait_s;
  }
  r.t_host_s = costs.host_s(1 + int(c.pass_widths.size()), r.t_verify_s + r.t_draft_s, batch, sequence_host_us) +
               speculative_host_s * costs.host().dispatch_time_scale;
  r.ttit_s = r.t_verify_s + r.t_draft_s + r.t_host_s;
  r.tokens_per_s = r.tpc / r.ttit_s;
  const EagleForwardCost ar = costs.verify(1, batch, context);
  r.ar_step_s = ar.seconds + costs.host_s(1, ar.seconds, batch, sequence_host_us);
  r.ar_wait_s = ar.wait_s;
  r.speedup = r.tokens_per_s * r.ar_step_s;
  r.weight_bytes = v.weight_bytes;
  r.ar_weight_bytes = ar.weight_bytes;
  r.kv_bytes = v.kv_bytes;
  r.status = costs.memory_status(r.x, batch, context);
  r.feasible = r.status.rfind("infeasible", 0) != 0;
  return r;
}

EagleDispatchRow evaluate_eagle_tree(const models::LatencyEngine& engine, models::Workload w,
                                     const models::SoftwareStack& stack, const EagleTreeCandidate& c,
                                     int batch, long long context) {
  return evaluate_eagle_tree(*make_engine_eagle_costs(engine, std::move(w), stack), c, batch, context);
}

std::vector<EagleDispatchRow> eagle_dispatch(const models::LatencyEngine& engine, const models::Workload& w,
                                             const models::SoftwareStack& stack,
                                             const PositionalAcceptance& acceptance,
                                             const EagleDispatchOptions& o) {
  return eagle_dispatch(*make_engine_eagle_costs(engine, w, stack), acceptance, o);
}

std::vector<EagleDispatchRow> eagle_dispatch(const EagleCostModel& costs, const PositionalAcceptance& acceptance,
                                             const EagleDispatchOptions& o) {
  if (o.batches.empty()) throw models::InputError("eagle dispatcher: no batch sizes");
  for (int b : o.batches)
    if (b < 1) throw models::InputError(fmt::format("eagle dispatcher: batch must be >= 1, got {}", b));
  const auto candidates = eagle_tree_candidates(acceptance, o);
  std::vector<EagleDispatchRow> out;
  for (int b : o.batches) {
    EagleDispatchRow best, fastest, infeasible;
    bool have = false, have_fast = false, any = false;
    for (const auto& c : candidates) {
      EagleDispatchRow r = evaluate_eagle_tree(costs, c, b, o.context, o.speculative_host_s, o.sequence_host_us);
      if (!r.feasible) {  // memory does not fit: never chosen
        if (!any) infeasible = r, any = true;
        continue;
      }
      if (!have_fast || r.ttit_s < fastest.ttit_s) fastest = r, have_fast = true;
      if (o.latency_target_s > 0 && r.ttit_s > o.latency_target_s) continue;
      // Strictly better speed wins; ties keep the earlier (smaller-index) candidate.
      if (!have || r.tokens_per_s > best.tokens_per_s) best = r, have = true;
    }
    if (!have_fast) {  // no candidate fits memory: the row reports the smallest tree's need
      infeasible.meets_target = false;
      out.push_back(infeasible);
      continue;
    }
    if (!have) {  // nothing meets the target: the fastest step, flagged
      best = fastest;
      best.meets_target = false;
    }
    out.push_back(best);
  }
  return out;
}

}  // namespace search
