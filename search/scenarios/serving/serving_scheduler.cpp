#include "search/scenarios/serving/serving_scheduler.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"
#include "models/registry.hpp"

namespace search::serving {
namespace {

models::Registry<std::string, ServingSchedulerInfo>& schedulers() {
  static models::Registry<std::string, ServingSchedulerInfo> r("serving schedulers");
  return r;
}

}  // namespace

ServingSchedulerRegistration::ServingSchedulerRegistration(const std::string& name, ServingSchedulerInfo info) {
  schedulers().add(name, std::move(info));
}

std::vector<std::string> serving_scheduler_names() { return schedulers().keys(); }

std::unique_ptr<ServingScheduler> make_serving_scheduler(const std::string& name) {
  const ServingSchedulerInfo* info = schedulers().find(name);
  if (!info) {
    std::vector<std::string> lines;
    for (const auto& [key, entry] : schedulers().entries()) lines.push_back(fmt::format("{} ({})", key, entry->summary));
    throw models::InputError(fmt::format("serve: scheduler '{}' is not registered (available: {})", name,
                                         lines.empty() ? "none" : fmt::format("{}", fmt::join(lines, "; "))));
  }
  return info->make();
}

}  // namespace search::serving
