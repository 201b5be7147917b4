#pragma once
// Positional acceptance model (paper 004's trees): the draft's rank-r candidate at
// depth d is the target's token with probability p_d(r) = alpha_d (1 - alpha_d)^r, given its
// parent was accepted (rank 0 is the chain's draft; the geometric rank tail is an assumption of
// this model, not a published figure), independently across depths. A node is accepted when its
// whole rank path is, so the expected tokens per call of a tree is
//   TPC = 1 + sum over nodes of prod_{i on its path} p_{d_i}(r_i)
// (siblings are disjoint events), and of a chain of n, 1 + sum_{d<=n} prod_{i<=d} alpha_i.
// alpha_d = min(a r^(d-1), kAlphaCap): a level a and a per-depth decay r.
//
// It is the acceptance process's independent special case under constant confidence
// (acceptance_process.hpp: alpha_easy = alpha_hard = a, depth_decay = r, cap kAlphaCap), and
// answers through that process, so the EAGLE scenarios draw from the one acceptance process.
//
// Layering: acceptance models speak of rank paths only (search/acceptance/trace.hpp); trees are
// built and scored from them one layer up, in search/trees/positional_trees.hpp (tree_tpc,
// full_tree, pruned_tree), so search/acceptance/ never includes search/trees/.
#include <string>
#include <vector>

#include "search/acceptance/acceptance_process.hpp"
#include "search/acceptance/trace.hpp"

namespace search {

struct ChainTpcPoint {
  int length = 0;   // speculation length (draft tokens of the chain)
  double tpc = 0;   // measured tokens per call
};

class PositionalAcceptance {
 public:
  PositionalAcceptance(double level, double decay, std::string source);
  double level() const { return level_; }
  double decay() const { return decay_; }
  const std::string& source() const { return source_; }
  double alpha(int depth) const;                    // depth >= 1
  double rank_probability(int depth, int rank) const;
  double path_probability(const RankPath& path) const;
  double chain_tpc(int length) const;
  const AcceptanceProcess& process() const { return process_; }

 private:
  double level_, decay_;
  std::string source_;
  AcceptanceProcess process_;
};

// The level a with chain_tpc(length) == tpc at a fixed decay (bisection); InputError when tpc
// is outside [1, length + 1).
double solve_level(double decay, const ChainTpcPoint& point);
// The decay (on a 0.001 grid over [0.80, 1.30]) whose level, solved on points[0], best fits the
// other points in least squares. InputError for fewer than two points.
double fit_decay(const std::vector<ChainTpcPoint>& points);

// The model for a user's own EAGLE head from its measured chain TPCs (`eagle --chain-tpc
// 3:2.8,5:3.3`): with two or more chain lengths the decay is fitted to them (fit_decay) and the
// level solved on the shortest; with one, the level is solved on it under the mean decay of paper
// 004's EAGLE-3 rows (the rule paper004_acceptance uses for targets without such a row).
// InputError for no point, a length below 1 or a repeated length, or a TPC no chain reaches.
PositionalAcceptance user_chain_acceptance(std::vector<ChainTpcPoint> points, const std::string& config_dir);

// "3:2.8,5:3.3" -> chain points (InputError naming `option` and the bad item).
std::vector<ChainTpcPoint> parse_chain_tpcs(const std::string& text, const std::string& option);

// The model for a target of paper 004 (the models of configs/reference/paper004_table1.yaml:
// "llama-3.1-8b-instruct", "llama-3.1-70b", "llama-4-scout", "llama-4-maverick"): decay fitted to
// the EAGLE-3 chain TPCs at lengths 3/5/7 of paper 004 Table 1 (the model's own EAGLE-3 row when
// the table has one, else the mean of the rows' decays), level solved on the paper's own-EAGLE
// chain-3 TPC of Table 1 (MT-Bench). Table 2's BF16 chain-3 TPCs are not used. InputError for
// another model. The tables are read from `config_dir`'s reference/ folder (the caller's
// registry: ConfigRegistry::dir(), so --config-dir reaches them).
PositionalAcceptance paper004_acceptance(const std::string& config_dir, const std::string& target_model);
std::vector<std::string> paper004_models(const std::string& config_dir);
// Paper 004 Table 2 (MT-Bench, chain of 3, BF16 draft FFN) TPC of a model, for comparisons
// (configs/reference/paper004_table2.yaml).
double paper004_table2_tpc(const std::string& config_dir, const std::string& target_model);

}  // namespace search
