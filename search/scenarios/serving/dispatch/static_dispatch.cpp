// The static dispatch policy, `serve`'s default: every speculative step drafts ServingConfig::k
// tokens per sequence, whatever the batch.
#include <memory>

#include "search/scenarios/serving/serving_dispatch.hpp"

namespace search::serving {
namespace {

class StaticDispatch final : public DispatchPolicy {
 public:
  explicit StaticDispatch(int k) : k_(k) {}
  int draft_tokens(int, long long) override { return k_; }

 private:
  int k_;
};

const DispatchPolicyRegistration kStaticDispatchRegistered(
    "static", {"--k draft tokens every speculative step", false,
               [](const DispatchInputs& in) { return std::make_unique<StaticDispatch>(in.config.k); }});

}  // namespace
}  // namespace search::serving
