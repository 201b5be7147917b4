#pragma once
// EAGLE tree dispatcher (paper 004 §3.4): per batch size B, the static token tree
// whose per-sequence decode speed TPC / TTIT is highest (or, with a latency target, the fastest
// tree whose step meets it), and its speed-up over plain decoding.
//   TPC   from the positional acceptance model (search/acceptance/positional_acceptance.hpp);
//   TTIT  = T_verify(B sequences x x tree tokens, per-sequence KV at context L, tree mask)
//         + T_draft (EAGLE head passes level by level: the root, then every depth's nodes that
//           have children, each pass over B x width rows)
//         + host: the stack's per-step sampling/bookkeeping and one graph launch per forward,
//           plus the speculative step's own host work (EagleDispatchOptions::speculative_host_s).
// Plain decoding: T_verify(B x 1) + host with one forward. The forwards are costed by an
// EagleCostModel (eagle_costs.hpp): one GPU's engine (kernels only, so host time is counted
// once, here) or a tensor-parallel system on the system timeline (collectives included).
#include <string>
#include <vector>

#include "models/latency_engine.hpp"
#include "search/scenarios/eagle_dispatcher/eagle_costs.hpp"
#include "models/software_stack.hpp"
#include "search/trees/positional_trees.hpp"
#include "search/trees/token_tree.hpp"

namespace search {

// Paper 004's own draft (a 3-layer dense head), whose acceptance its TPC model carries: the
// dispatcher's head when no algorithm is named.
constexpr const char* kDefaultEagleHead = "eagle-dense3-chain";

struct EagleTreeCandidate {
  std::string name;            // "D3-BF1" (full tree), "N8" (pruned)
  TokenTree tree;
  double tpc = 0;
  std::vector<int> pass_widths;  // draft pass widths per sequence
};

struct EagleDispatchOptions {
  std::vector<int> batches = {1, 2, 4, 8, 16, 32, 64, 128};
  long long context = 1024;
  int max_full_depth = 4, max_full_branching = 4;  // D_m-BF_n for m, n up to these
  int max_tree_nodes = 64;                         // candidates with at most this many draft nodes
  std::vector<int> pruned_nodes = {2, 3, 4, 6, 8, 10, 12, 16, 24, 32, 48, 64};
  // Beyond 64 the same ladder goes on where --max-nodes allows it, ending at max_tree_nodes itself,
  // so that the largest tree searched is the one --max-nodes names.
  std::vector<int> larger_pruned_nodes = {96, 128, 192, 256, 384, 512, 768, 1024};
  // Pruned trees grow to this depth and branching; no candidate goes beyond them (kMaxDraftDepth,
  // kMaxDraftBranching below).
  int pruned_max_depth = 6, pruned_max_branching = 4;
  std::vector<std::string> only_trees;  // non-empty: these candidates alone ("D3-BF1", "N8")
  // The head drafts chains only (models::DraftBuilder::drafts_trees false: MTP modules): the
  // candidates are the chains D1-BF1 .. D<pruned_max_depth>-BF1, and a named tree must be one.
  bool chains_only = false;
  double latency_target_s = 0;  // > 0: TTIT must not exceed it
  // Host work a speculative step adds beyond the plain step's sampling and bookkeeping: tree
  // sampling over every node (paper 004 §3.2's multi-round speculative sampling), acceptance
  // bookkeeping, draft-cache alignment. Paper 004 calls it significant and reports only that
  // torch.compile made it 1.5x faster; no published figure gives it, so it is 0 by default and a
  // sensitivity input (`eagle --sd-host-us`, eagle-fig9's host sensitivity). Like every host
  // figure it is the reference host's: the device's host scales it (EagleCostModel::host).
  double speculative_host_s = 0;
  // Host work per sequence per decode step, plain and speculative alike (SoftwareStack::
  // per_sequence_host_us, overlapped with the GPU as the stack's per-step work is): >= 0 replaces
  // the stack's figure (0 in every shipped stack; `eagle --seq-host-us`, eagle-fig9's sequence
  // sensitivity), < 0 keeps it; the device's host scales it, as the stack's own.
  double sequence_host_us = -1;
};

struct EagleDispatchRow {
  int batch = 1;
  std::string tree;
  int x = 1;                    // verified tokens per sequence (tree nodes + root)
  double tpc = 1;
  double t_verify_s = 0, t_draft_s = 0, t_host_s = 0, ttit_s = 0;
  double tokens_per_s = 0;      // per sequence: TPC / TTIT
  double ar_step_s = 0;         // plain decoding step (B x 1 tokens + host)
  double speedup = 1;           // tokens_per_s x ar_step_s
  double t_wait_s = 0;          // of TTIT: exposed collectives / transfers (verify + draft)
  double ar_wait_s = 0;         // ... of the plain decoding step
  double weight_bytes = 0;      // target weights one verify step reads per GPU (MoE: distinct experts)
  double ar_weight_bytes = 0;   // ... and one plain decoding step
  double kv_bytes = 0;          // target KV cache one verify step reads per GPU (shared by the tree)
  bool meets_target = true;
  bool feasible = true;         // false: no candidate fits memory at this batch (no times)
  std::string status = "ok";    // memory: "ok", "unchecked" or "infeasible: needs X of Y"
};

// Deepest tree and widest node an EAGLE head drafts: EAGLE-2's dynamic trees stop at depth 6
// (its default total depth) and the head returns its top kHeadCandidates (sim/system) tokens.
constexpr int kMaxDraftDepth = 6, kMaxDraftBranching = 4;

// The candidate named `name` ("D3-BF1", "N8"): InputError for an unknown form, a depth beyond
// kMaxDraftDepth, a branching beyond kMaxDraftBranching or more nodes than `max_nodes`.
EagleTreeCandidate eagle_named_tree(const PositionalAcceptance& acceptance, const std::string& name,
                                    const EagleDispatchOptions& options);

// Draft pass widths of an EAGLE drafter building `tree` level by level: the root, then at each
// depth the nodes that have children (one pass per level; empty for the root alone).
std::vector<int> eagle_pass_widths(const TokenTree& tree);

// Full trees D_m-BF_n and pruned trees N_i (deduplicated by shape, in a fixed order), with TPC.
// The draft nodes of the largest candidate tree searched (0 with only_trees).
int eagle_largest_candidate_nodes(const EagleDispatchOptions& o);

std::vector<EagleTreeCandidate> eagle_tree_candidates(const PositionalAcceptance& acceptance,
                                                      const EagleDispatchOptions& options);

// Host seconds one decode step of `sequences` sequences with `forwards` captured forwards (1
// verify + draft passes) adds to `device_s` of GPU work: the stack's per-step and per-sequence
// work (SoftwareStack::step_host_us; per_sequence_us >= 0 replaces the stack's per-sequence
// figure) and graph launches in series, or, where the stack overlaps its host work with the
// device (host_overlaps_device), only the first launch and whatever of the rest outlasts the
// device time.
// Every host figure runs on `host` (models/host_spec.hpp: the device's host).
double eagle_host_seconds(const models::SoftwareStack& stack, const models::HostSpec& host, int forwards,
                          double device_s = 0, int sequences = 1, double per_sequence_us = -1);

// One candidate at one batch on a deployment; memory is checked (status) and times are given
// either way.
EagleDispatchRow evaluate_eagle_tree(const EagleCostModel& costs, const EagleTreeCandidate& tree, int batch,
                                     long long context, double speculative_host_s = 0,
                                     double sequence_host_us = -1);
// The dispatcher's table on a deployment: per batch, the best feasible tree (an infeasible row
// when none fits memory).
std::vector<EagleDispatchRow> eagle_dispatch(const EagleCostModel& costs, const PositionalAcceptance& acceptance,
                                             const EagleDispatchOptions& options);

// One candidate at one batch (workload.batch is overridden by `batch`).
EagleDispatchRow evaluate_eagle_tree(const models::LatencyEngine& engine, models::Workload workload,
                                     const models::SoftwareStack& stack, const EagleTreeCandidate& tree,
                                     int batch, long long context);

// The dispatcher's table: per batch, the chosen tree. InputError for batch < 1, a workload
// without an algorithm, or no candidates.
std::vector<EagleDispatchRow> eagle_dispatch(const models::LatencyEngine& engine, const models::Workload& workload,
                                             const models::SoftwareStack& stack,
                                             const PositionalAcceptance& acceptance,
                                             const EagleDispatchOptions& options);

}  // namespace search
