#pragma once
// SpecPipe's dynamic speculative token tree (paper 002 §3.2-3.3) as rank paths: every node is
// its parent's rank-j candidate in the draft's output. Layer appending: each bottom node proposes
// its k best candidates, and the w with the highest cumulative probability form the new level
// (§3.3.3, beam-search-like). To-subtree pruning: once the target verifies the token at depth
// E, every level keeps only the descendants of that token; a level that does not contain it
// empties the tree (a pipeline flush) and the verified token becomes the new root.
//
// Where the target's token is: at each depth the target's token is its (true) parent's rank-r
// candidate. It is in the tree iff its parent is and the (parent, r) candidate was kept.
// Cumulative probabilities: the draft is calibrated, i.e. the target's token is a node's rank-j
// candidate with the probability the draft gives that candidate. Two models of that probability
// (DraftConfidence):
//  - calibrated (default): each node's context has its own confidence. The node's top-1
//    probability P1 is drawn once per context (a hash of the seed and the node's path, so the
//    same context has the same confidence at every w and k); its other candidates share 1 - P1
//    in the proportions of the hit curve's rank distribution p_j (j >= 2). P1 follows the
//    calibrated draft of DESIGN.md ("Probability traces": Beta(alpha / (1 - alpha), 1), mean
//    alpha = H(1)), moved onto [m, 1] with m = p_2 / (1 - alpha + p_2) so that P1 >= P2 (the draft
//    lists its candidates best first) and with the mean kept at H(1). Then E[P1] = H(1) and
//    E[P_j] = p_j: the ranks' marginal distribution is exactly the fitted hit curve, while the
//    beam (w best by cumulative probability) spends its width where the draft is unsure, which is
//    what paper 002's dynamic tree does (§3.3.3). The spread of P1 is the generator's, not fitted.
//  - constant: every node carries the curve's mean rank probabilities P(rank = j) (the beam's
//    order is the same at every depth): the model before the calibrated one, kept to show how
//    much of the hit rate the confidence spread accounts for.
// With a probability trace the ranks are the trace's and the beam order its mean listed
// probabilities; with a fixed hit rate, rank 1 or nothing (both: constant confidence).
//
// From the acceptance process (search/acceptance/acceptance_process.hpp), the one every scenario
// draws from: the text's hidden state (easy / hard) runs along the text's depth as the process's
// Markov chain, seeded, so that hits and misses come in stretches as they do in real text. A
// node's children predict the position one deeper, so the node's confidence follows that
// position's state: the draft's top-1 probability p1 is the state's alpha (constant confidence)
// or drawn from the process's Beta(c, 1) law by the node's context key (calibrated), and it
// lists its rank-j candidate under the process's rank tail: p1 (1 - p1)^(j - 1) (geometric) or
// the log-logistic law of search/acceptance/rank_tail.hpp. The target's
// token is rank 1 with probability p1 (or the state's alpha where the process says the context's
// confidence is uninformative, `calibration`), a lower rank with the process's lower_rank_share
// of the tail, else outside every list. Every level is one draft step from its parent's context
// (the draft re-reads the tree's path), so the process is taken at draft depth 1.
//
// Verification (paper 002 §3.4): greedy (lossless, the target's top-1 token must be in the level),
// relaxed (the level's best candidate is taken when the target's token is not there: no stall
// unless the level is empty) or top-p (a candidate within the target's top-p set is taken; the set
// holds the nucleus_size() tokens at which the rank distribution first reaches p, each at an
// independent rank among the parent's candidates: the calibrated-draft assumption again). After a
// substitution the text follows the substituted token, so the deeper levels' target tokens are
// drawn again below it.
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "search/acceptance/acceptance_process.hpp"
#include "search/acceptance/probability_trace.hpp"
#include "search/scenarios/specpipe/hit_curve.hpp"

namespace search::specpipe {

// How the draft's confidence varies over contexts (see the header comment).
enum class DraftConfidence { calibrated, constant };
// "calibrated" / "constant"; InputError naming --confidence otherwise.
DraftConfidence parse_draft_confidence(const std::string& name);
const char* draft_confidence_name(DraftConfidence c);

struct TreeNode {
  int parent = -1;      // index in the previous level
  int rank = 1;         // the parent's rank-`rank` candidate
  double log_p = 0;     // cumulative log probability from the tree's root
  // The draft's confidence at this node's context (RankModel::set_confidence): its children's
  // top-1 probability, and log((1 - top1) / (1 - alpha)) that scales the curve's p_j (j >= 2).
  // Constant confidence: top1 = alpha and the shift is exactly 0.
  std::uint64_t key = 0;  // the context: a hash of the seed and the path from the text
  double top1 = 0, log_top1 = 0, log_rest_shift = 0;
};

// Where the target's token ranks among its parent's candidates.
class RankModel {
 public:
  // Ranks from the hit curve (log-logistic): P(rank <= k) = H(k), marginally over positions.
  static RankModel from_curve(const HitCurve& curve, int max_k,
                              DraftConfidence confidence = DraftConfidence::calibrated);
  // A fixed hit rate p in [0, 1]: the target's token is its parent's best candidate with
  // probability p, else outside every candidate list. The beam order uses `order`'s rank
  // probabilities (any curve; only the order matters).
  static RankModel fixed(double p, const HitCurve& order, int max_k);
  // Ranks replayed from a probability trace (DESIGN.md "Probability traces"): the target's token
  // at depth d (tokens after the prompt) ranks as the trace's position d mod N says (RANK + 1;
  // unlisted: outside every list), the same at every visit of that depth, as in the text the
  // target produced. Beam order: the mean of each listed probability over the trace, so k is at
  // most the number of probabilities every position lists (InputError otherwise).
  static RankModel from_probability_trace(const ProbabilityTrace& trace, int max_k);
  // Ranks from the acceptance process (see the header comment). The text's states are drawn once
  // from `seed` for kProcessTextTokens positions and repeat beyond them.
  static RankModel from_process(const AcceptanceProcess& process, int max_k, std::uint64_t seed = 1);
  static constexpr long long kProcessTextTokens = 1LL << 16;
  // The target's token rank (>= 1) at `depth`; > max_k() when outside every candidate list.
  // Marginal over the draft's confidence (what a static tree, which never looks at it, sees).
  long long draw(std::mt19937_64& rng, long long depth) const;
  // The same below a node of known confidence: rank 1 with probability parent.top1, else a rank
  // >= 2 from the curve's tail. One uniform per call in either model (the stream stays aligned).
  long long draw_below(std::mt19937_64& rng, long long depth, const TreeNode& parent) const;
  // Fills node.top1 / log_top1 / log_rest_shift from node.key (calibrated) or the curve's mean;
  // under the process also from the state of the position below the node (`depth` + 1, the
  // node's own depth in the text).
  void set_confidence(TreeNode& node, long long depth = 0) const;
  // set_confidence in two halves, for a caller that needs a node's lower ranks only sometimes:
  // top1 and log_top1, then log_rest_shift from top1 (each a transcendental call or more).
  void set_top1(TreeNode& node, long long depth = 0) const;
  void set_rest_shift(TreeNode& node) const;
  // log of the probability of `parent`'s rank-j candidate (non-increasing in j).
  double child_log_prob(const TreeNode& parent, int j) const;
  DraftConfidence confidence() const { return confidence_; }
  // A node carrying the curve's mean confidence (for draws below a parent the tree does not hold).
  const TreeNode& mean_confidence_node() const { return mean_node_; }
  // log P(rank = j) used for cumulative probabilities, j = 1..max_k (non-increasing in j).
  double log_prob(int j) const { return log_prob_[std::size_t(j - 1)]; }
  int max_k() const { return int(log_prob_.size()); }
  // Tokens in the target's top-p set: the smallest s with P(rank <= s) >= p (at least 1; capped
  // at max_k(), beyond which no candidate list reaches).
  int nucleus_size(double p) const;
  std::string describe() const;  // "hit curve NAME", "fixed hit rate P", "trace FILE", "acceptance process ..."
  bool from_acceptance_process() const { return process_ != nullptr; }

 private:
  void set_mean_confidence(TreeNode& node) const;  // the curve's mean confidence (constant model)
  HitCurve curve_copy_;
  double fixed_p_ = -1;              // < 0: use the curve (or the trace)
  std::vector<long long> trace_ranks_;  // non-empty: replay these (1-based; huge: unlisted)
  std::string trace_source_;
  std::vector<double> log_prob_;
  DraftConfidence confidence_ = DraftConfidence::constant;
  double top1_mean_ = 0;   // alpha = H(1) (calibrated)
  double top1_floor_ = 0;  // m: P1 >= P2 (calibrated)
  double top1_power_ = 1;  // 1 / beta of the Beta(beta, 1) on [m, 1] (calibrated)
  double log_rest_mean_ = 0;  // log(1 - alpha) (calibrated)
  TreeNode mean_node_;     // see mean_confidence_node()
  // From the acceptance process: its states along the text and per-state rank laws.
  struct ProcessRanks;
  std::shared_ptr<const ProcessRanks> process_;
  long long process_draw_below(std::mt19937_64& rng, long long depth, const TreeNode& parent) const;
};

enum class Verification { greedy, relaxed, top_p };
// "greedy" / "relaxed" / "top-p"; InputError naming --verify otherwise.
Verification parse_verification(const std::string& name);
const char* verification_name(Verification v);


struct TreeLevel {
  long long depth = 0;
  std::vector<TreeNode> nodes;
  // Whether the nodes' confidences (top1, log_top1) are filled in. The deepest level's wait
  // until the draft extends it (SpeculativeTree::append_level): the nodes pruned or flushed
  // before then (a fifth of them over paper 002's Fig. 10 grid) never need theirs, and each
  // costs two transcendental calls. Each node's log_rest_shift (a third) is worked out there
  // only once its best candidate is taken.
  bool confidence_set = false;
  int on_path = -1;     // the node that is the target's token at this depth, -1 if absent
  std::vector<int> in_nucleus;  // top-p: nodes in the target's top-p set (best first)
};

// What a verification found.
enum class VerifyOutcome { hit, substituted, miss };

class SpeculativeTree {
 public:
  // `seed` names the text: the contexts' confidences (calibrated draft) hash it with their path.
  SpeculativeTree(int width, int candidates, const RankModel& ranks, Verification verification = Verification::greedy,
                  double top_p = 0.9, std::uint64_t seed = 1);
  // Start over from a verified token at `depth` (decode start, or after a flush).
  void reset(long long depth);
  // Layer appending from the deepest level; returns the new level's depth. `bottom_nodes` (if
  // given) receives how many nodes the draft extended (its pass width).
  long long append_level(std::mt19937_64& rng, int* bottom_nodes = nullptr);
  // The target verified its token at `depth`: true (hit) when that level holds it, and every
  // level is pruned to its subtree; false (miss) empties the tree and re-roots it at `depth`.
  // Greedy verification only (relaxed and top-p need the draws of verify_with).
  bool verify(long long depth);
  // Verification under the tree's rule: hit (the target's token), substituted (relaxed / top-p
  // took another candidate; the deeper levels' target tokens are drawn anew below it) or miss.
  VerifyOutcome verify_with(long long depth, std::mt19937_64& rng);
  bool has_level(long long depth) const { return levels_.count(depth) != 0; }
  int size(long long depth) const;  // nodes at that depth (0 when absent)
  void drop_through(long long depth);  // forget levels at or above `depth` (computed and done)
  long long deepest() const { return levels_.rbegin()->first; }

 private:
  // Draws the target's token at `level` below the level `above` it (its on-path node, if any).
  void mark_target(TreeLevel& level, const TreeLevel& above, std::mt19937_64& rng);
  void prune_below(std::map<long long, TreeLevel>::iterator it, std::mt19937_64* redraw);
  // Context keys: the text's own token at `depth`, and a candidate below a node.
  std::uint64_t text_key(long long depth) const;
  static std::uint64_t child_key(std::uint64_t parent_key, int rank);
  int width_, candidates_;
  std::uint64_t seed_;
  const RankModel& ranks_;
  Verification verification_;
  int nucleus_ = 1;
  std::map<long long, TreeLevel> levels_;
  // Scratch of prune_below (old index -> new index, this level and the one above), kept between
  // calls: a run prunes once per pipeline step.
  std::vector<int> map_, next_map_;
  // append_level's merge (kept to reuse its memory): a bottom node's next candidate.
  struct Cand {
    double log_p;
    int parent, rank;
    // Highest cumulative probability first; ties by (parent, rank) so the tree is deterministic.
    bool better(const Cand& o) const {
      if (log_p != o.log_p) return log_p > o.log_p;
      if (parent != o.parent) return parent < o.parent;
      return rank < o.rank;
    }
  };
  std::vector<Cand> heads_;
  std::vector<int> losers_, tournament_;  // append_level's tournament tree (kept to reuse its memory)
};

}  // namespace search::specpipe
