// The per-batch dispatch policy (paper 004's argument for choosing the draft per batch size, for a
// chain or a tree of the preset's yields): each step drafts the k of 0..ServingConfig::k with the
// most tokens a second per sequence at its batch and context bucket: E[tokens kept | k] over the
// step's time, from the chain's stationary yields (E[min(yield, k + 1)] for a chain; a tree's
// renewal expectation, eagle_tree_recovery.hpp); 0 turns speculation off where it does not pay.
// Memoised per (batch, bucket): the same step costs give the same choice.
#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "search/scenarios/serving/eagle_tree_recovery.hpp"
#include "search/scenarios/serving/serving_dispatch.hpp"

namespace search::serving {
namespace {

class PerBatchDispatch final : public DispatchPolicy {
 public:
  explicit PerBatchDispatch(const DispatchInputs& in) : k_(in.config.k), costs_(in.costs) {
    const ServingConfig& c = in.config;
    if (!in.chain) return;  // no chain: never asked (nothing speculates on its statistics)
    const YieldChain& chain = *in.chain;
    if (c.tree_by_k.empty()) {
      kept_if_.assign(std::size_t(c.k) + 1, 0.0);
      for (int k = 0; k <= c.k; ++k)
        for (std::size_t y = 0; y < chain.marginal.size(); ++y)
          kept_if_[std::size_t(k)] += chain.marginal[y] * double(std::min<std::size_t>(y + 1, std::size_t(k) + 1));
    } else {
      // A tree's expectation over the stationary yields as independent draws (the renewal of
      // eagle_tree_recovery.hpp): P(accepted >= j) = P(yield >= j + 1).
      std::vector<double> survival(chain.marginal.size(), 0.0);
      double tail = 0;
      for (std::size_t y = chain.marginal.size(); y-- > 1;) {
        tail += chain.marginal[y];
        survival[y - 1] = tail;
      }
      kept_if_.assign(std::size_t(c.k) + 1, 0.0);
      for (int k = 0; k <= c.k; ++k)
        kept_if_[std::size_t(k)] = renewal_tree_kept(survival, c.tree_by_k[std::size_t(k)].depth,
                                                     c.tree_by_k[std::size_t(k)].recovery);
    }
  }

  int draft_tokens(int batch, long long bucket) override {
    if (kept_if_.empty()) throw std::logic_error("per-batch dispatch: asked without a chain's yields");
    const auto key = std::make_pair(batch, bucket);
    if (auto it = chosen_.find(key); it != chosen_.end()) return it->second;
    int best = 0;
    double best_rate = 1 / costs_.decode_s(batch, 1, bucket, 0);
    for (int k = 1; k <= k_; ++k) {
      const double rate = kept_if_[std::size_t(k)] / costs_.decode_s(batch, k + 1, bucket, k);
      if (rate > best_rate) best = k, best_rate = rate;
    }
    return chosen_[key] = best;
  }

 private:
  int k_;
  const ServingStepCosts& costs_;
  std::vector<double> kept_if_;  // kept_if_[k]: expected tokens kept per sequence with k drafted
  std::map<std::pair<int, long long>, int> chosen_;
};

const DispatchPolicyRegistration kPerBatchDispatchRegistered(
    "per-batch", {"the k of 0..--k with the most tokens a second at the step's batch and context, from the "
                  "preset's yields (0: speculation off where it does not pay)",
                  true, [](const DispatchInputs& in) { return std::make_unique<PerBatchDispatch>(in); }});

}  // namespace
}  // namespace search::serving
