// cache-fsm: +1 when an accepted token was already in the token cache, +1 more when all were
// accepted, -1 when none of the accepted tokens was cached. It needs the trace's cache flags,
// so the family is empty for a trace without them.
#include "search/window/policy_registry.hpp"

namespace search {
namespace {

class CacheFsmPolicy : public WindowPolicy {
 public:
  explicit CacheFsmPolicy(const PolicyOptions& o) : o_(o), gamma_(clamp_gamma(o.gamma_init, o)) {}
  std::string name() const override { return "cache-fsm"; }
  int next_gamma() override { return gamma_; }
  void observe(const IterationOutcome& r) override {
    int step = r.any_cached ? 1 : -1;
    if (r.all_accepted()) step += 1;
    gamma_ = clamp_gamma(gamma_ + step, o_);
  }

 private:
  PolicyOptions o_;
  int gamma_;
};

}  // namespace

std::unique_ptr<WindowPolicy> make_cache_fsm_policy(const PolicyOptions& o) {
  validate(o);
  return std::make_unique<CacheFsmPolicy>(o);
}

namespace {

const WindowPolicyRegistration cache_fsm_policy_registration("cache-fsm", 40, [](const WindowPolicyInput& in) {
  std::vector<std::unique_ptr<WindowPolicy>> policies;
  if (in.trace.has_cache_flags) policies.push_back(make_cache_fsm_policy(in.options));
  return policies;
});

}  // namespace
}  // namespace search
