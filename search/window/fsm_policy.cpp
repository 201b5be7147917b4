// fsm: a saturating counter, +1 when every drafted token was accepted, -1 otherwise.
#include "search/window/policy_registry.hpp"

namespace search {
namespace {

class FsmPolicy : public WindowPolicy {
 public:
  explicit FsmPolicy(const PolicyOptions& o) : o_(o), gamma_(clamp_gamma(o.gamma_init, o)) {}
  std::string name() const override { return "fsm"; }
  int next_gamma() override { return gamma_; }
  void observe(const IterationOutcome& r) override {
    gamma_ = clamp_gamma(gamma_ + (r.all_accepted() ? 1 : -1), o_);
  }

 private:
  PolicyOptions o_;
  int gamma_;
};

}  // namespace

std::unique_ptr<WindowPolicy> make_fsm_policy(const PolicyOptions& o) {
  validate(o);
  return std::make_unique<FsmPolicy>(o);
}

namespace {

const WindowPolicyRegistration fsm_policy_registration("fsm", 30, [](const WindowPolicyInput& in) {
  std::vector<std::unique_ptr<WindowPolicy>> policies;
  policies.push_back(make_fsm_policy(in.options));
  return policies;
});

}  // namespace
}  // namespace search
