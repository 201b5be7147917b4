// static-G: the window stays G throughout (standard SD); the family runs every G in
// max(gamma_min, 1)..gamma_max.
#include <fmt/format.h>

#include <algorithm>

#include "models/config_error.hpp"
#include "search/window/policy_registry.hpp"

namespace search {
namespace {

class StaticPolicy : public WindowPolicy {
 public:
  explicit StaticPolicy(int gamma) : gamma_(gamma) {}
  std::string name() const override { return fmt::format("static-{}", gamma_); }
  int next_gamma() override { return gamma_; }
  void observe(const IterationOutcome&) override {}

 private:
  int gamma_;
};

}  // namespace

std::unique_ptr<WindowPolicy> make_static_policy(int gamma) {
  if (gamma < 0) throw models::InputError(fmt::format("static window: expected gamma >= 0, got {}", gamma));
  return std::make_unique<StaticPolicy>(gamma);
}

namespace {

const WindowPolicyRegistration static_policy_registration("static", 10, [](const WindowPolicyInput& in) {
  std::vector<std::unique_ptr<WindowPolicy>> policies;
  for (int g = std::max(in.options.gamma_min, 1); g <= in.options.gamma_max; ++g)
    policies.push_back(make_static_policy(g));
  return policies;
});

}  // namespace
}  // namespace search
