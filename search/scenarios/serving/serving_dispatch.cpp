#include "search/scenarios/serving/serving_dispatch.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"
#include "models/registry.hpp"

namespace search::serving {
namespace {

models::Registry<std::string, DispatchPolicyInfo>& policies() {
  static models::Registry<std::string, DispatchPolicyInfo> r("serving dispatch policies");
  return r;
}

}  // namespace

DispatchPolicyRegistration::DispatchPolicyRegistration(const std::string& name, DispatchPolicyInfo info) {
  policies().add(name, std::move(info));
}

std::vector<std::string> dispatch_policy_names() { return policies().keys(); }

const DispatchPolicyInfo& dispatch_policy(const std::string& name) {
  const DispatchPolicyInfo* info = policies().find(name);
  if (!info) {
    std::vector<std::string> lines;
    for (const auto& [key, entry] : policies().entries()) lines.push_back(fmt::format("{} ({})", key, entry->summary));
    throw models::InputError(fmt::format("serve: --dispatch '{}' is not a registered policy (available: {})", name,
                                         lines.empty() ? "none" : fmt::format("{}", fmt::join(lines, "; "))));
  }
  return *info;
}

}  // namespace search::serving
