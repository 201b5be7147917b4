// Timing setups from config names (specpipe_scenario.hpp), with their inputs checked.
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "models/config_error.hpp"
#include "search/scenarios/specpipe/specpipe_scenario.hpp"

namespace search::specpipe {

std::string default_hit_points(const models::ConfigRegistry& reg) {
  return reg.dir() + "/acceptance/specpipe_hit_points.csv";
}

TimingSetup make_setup(const models::ConfigRegistry& reg, const std::string& system, const std::string& model,
                       const std::string& draft, const std::string& engine, long long context, double prune_s) {
  TimingSetup s;
  s.system = models::load_system(reg.path("systems", system), reg);
  s.target = reg.model(model);
  s.system.validate_placement(s.target);
  // method_stacks names only methods that take a stack: load_system refuses any other.
  if (!draft.empty()) {
    if (s.system.draft_device < 0)
      throw models::InputError(fmt::format("{}: placement.draft: --draft given but the system places no draft",
                                           s.system.source_file));
    s.draft = reg.model(draft);
  }
  if (context < 0) throw models::InputError(fmt::format("--context: {} (must be >= 0)", context));
  if (!(prune_s >= 0) || !std::isfinite(prune_s))
    throw models::InputError(fmt::format("--prune-ms: {} (must be a finite number >= 0)", prune_s * 1e3));
  s.engine = engine;
  s.context = context;
  s.prune_s = prune_s;
  s.task_names = false;  // a caller that writes a trace turns them back on
  return s;
}

}  // namespace search::specpipe
