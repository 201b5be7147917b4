// online (paper 001 §4.1): estimate the accuracy from the recent history (eq. 2, capped), then
// solve objective (1) over the integer windows with the engine's latencies.
#include <algorithm>

#include "search/window/mle.hpp"
#include "search/window/policy_registry.hpp"

namespace search {
namespace {

class OnlinePolicy : public WindowPolicy {
 public:
  OnlinePolicy(const PolicyOptions& o, const ChainLatency& latency) : o_(o), latency_(latency) {}
  std::string name() const override { return "online"; }
  int next_gamma() override {
    const double a = windowed_accuracy_tail(record_, o_.history, o_.acc_max, o_.prior_accuracy);
    // At least one token is drafted: a window of 0 would stop the estimate from ever updating.
    return clamp_gamma(optimal_gamma(a, latency_, std::max(o_.gamma_min, 1)).gamma, o_);
  }
  void observe(const IterationOutcome& r) override {
    record_.push_back({r.gamma, r.accepted});
    // Only the last h entries are ever read; keep the record bounded.
    // In size_t: 4 x a history near INT_MAX overflows an int (it wrapped negative and erased
    // before the record's start).
    const std::size_t keep = std::size_t(o_.history);
    if (record_.size() > 4 * keep + 64) record_.erase(record_.begin(), record_.end() - std::ptrdiff_t(keep));
  }

 private:
  PolicyOptions o_;
  const ChainLatency& latency_;
  std::vector<WindowObservation> record_;
};

}  // namespace

std::unique_ptr<WindowPolicy> make_online_policy(const PolicyOptions& o, const ChainLatency& latency) {
  validate(o);
  return std::make_unique<OnlinePolicy>(o, latency);
}

namespace {

const WindowPolicyRegistration online_policy_registration("online", 20, [](const WindowPolicyInput& in) {
  std::vector<std::unique_ptr<WindowPolicy>> policies;
  policies.push_back(make_online_policy(in.options, in.latency));
  return policies;
});

}  // namespace
}  // namespace search
