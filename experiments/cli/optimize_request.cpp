#include "experiments/cli/optimize_request.hpp"

#include <fmt/format.h>

#include "experiments/cli/cli_common.hpp"

namespace experiments {

ScenarioInputs optimize_inputs(const OptimizeRequest& a) {
  ScenarioInputs in;
  in.hw = a.hw;
  in.model = a.model;
  in.algorithm = a.algorithm;
  in.task = a.task;
  in.engine = a.engine;
  in.stack = a.stack;
  in.host = a.host;
  in.data = a.acceptance.data;
  in.source_table = a.acceptance.source_table;
  in.contexts = parse_int_list("--context", a.context, 0, kMaxContext);
  auto set = [&in](const std::string& key, const std::string& value) {
    if (!value.empty()) in.params.push_back(key + "=" + value);
  };
  set("batch", a.batch);
  set("x-max", std::to_string(a.x_max));
  set("x-search", a.x_search);
  set("measured-only", a.measured_only ? "true" : "false");
  set("aat-from", a.acceptance.aat_from);
  set("trace", a.acceptance.trace);
  set("acceptance", a.acceptance.process);
  // -1: not given; any other value goes to the declaration's check (NaN included).
  if (a.acceptance.alpha != -1) set("alpha", fmt::format("{}", a.acceptance.alpha));
  set("draft-hw", a.placement.draft_hw);
  set("draft-link", a.placement.draft_link);
  set("system", a.placement.system);
  set("draft-device", a.placement.draft_device);
  return in;
}

}  // namespace experiments
