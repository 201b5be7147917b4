#include "search/scenarios/scenario_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>

#include "models/config_error.hpp"
#include "models/draft_compatibility.hpp"
#include "models/system_spec.hpp"
#include "search/acceptance/aat_resolver.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/scenarios/validation_status.hpp"
#include "sim/system/system_costs.hpp"

namespace search {

models::Workload make_workload(const models::ConfigRegistry& reg, const std::string& model,
                               const std::string& algorithm, int batch) {
  models::Workload w;
  w.target = reg.model(model);
  w.batch = batch;
  if (!algorithm.empty()) w.algorithm = std::make_shared<models::AlgorithmSpec>(reg.algorithm(algorithm));
  // A standalone draft model must be able to draft for the target: the same vocabulary (its
  // tokens are the target's to verify) and not the target itself (nothing to speculate with).
  if (w.algorithm && w.algorithm->draft.model) models::require_can_draft(*w.algorithm->draft.model, w.target, "draft");
  return w;
}

ScenarioResult run_scenario(const std::string& name, const ScenarioInputs& in,
                                    const models::ConfigRegistry& reg) {
  return run_scenario(name, in, reg, ScenarioRun());
}

ScenarioResult run_scenario(const std::string& name, const ScenarioInputs& in, const models::ConfigRegistry& reg,
                            const ScenarioRun& body) {
  const auto info = scenario(name);
  std::vector<std::string> settings = in.params;
  // --engine also sets a scenario's own `engine` parameter; naming it both ways is a conflict
  // (which would win is not for the tool to guess).
  if (in.engine_given && find_param(info, "engine")) {
    for (const auto& s : settings)
      if (s.rfind("engine=", 0) == 0)
        throw models::InputError(fmt::format("scenario {}: --engine {} and --param {}: give the engine once", info.name,
                                             in.engine, s));
    settings.push_back("engine=" + in.engine);
  }
  // Likewise a scenario that declares `batch` itself (a list: tree-sd's batches) gets the common
  // input's value when the caller set one (plan, a sweep point, `scenario --batch`).
  // A caller that sets the parameter itself (plan's schemes name the batch they plan for) keeps
  // it; a user who typed both is told to give one.
  if (find_param(info, "batch") && (in.given.count("batch") || in.batch != 1)) {
    const auto set = std::find_if(settings.begin(), settings.end(), [](const std::string& s) { return s.rfind("batch=", 0) == 0; });
    if (set != settings.end() && in.given.count("batch"))
      throw models::InputError(fmt::format("scenario {}: --batch {} and --param {}: give the batch once", info.name,
                                           in.batch, *set));
    if (set == settings.end()) settings.push_back("batch=" + std::to_string(in.batch));
  }
  ScenarioContext ctx;
  ctx.scenario = info.name;
  ctx.declared = info.params;
  ctx.params = scenario_params(info, settings);
  ctx.given = in.given;
  for (const auto& s : settings) ctx.given.insert(s.substr(0, s.find('=')));
  if (!in.contexts.empty()) ctx.given.insert("context");
  ctx.configs = &reg;
  ctx.want_trace = in.want_trace;
  ctx.system = in.system_spec;
  // A task names whose measured acceptance to use: an empty one matches nothing, and would read
  // as "no measurements" further on.
  if (in.task.empty())
    models::throw_input_error("scenario " + info.name, "task", "a task name (e.g. govreport)", "''");
  ctx.task = in.task;
  ctx.engine_name = in.engine;
  ctx.data = in.data;
  ctx.source_table = in.source_table;
  std::optional<models::HardwareSpec> hw;
  std::unique_ptr<sim::SystemCosts> device;  // --hw as a one-device deployment
  if (in.hw_spec) {
    ctx.hw = in.hw_spec;
  } else if (!in.hw.empty()) {
    hw = reg.hardware(in.hw);
    ctx.hw = &*hw;
  }
  // --stack and --host set what runs on --hw's device: each needs that device, and one whose
  // engines charge a software stack's host work. `set` loads the named file into the copy.
  auto set_device_input = [&](const char* key, const std::string& value, const char* what, const char* charged,
                              const std::function<void(models::HardwareSpec&)>& set) {
    if (value.empty()) return;
    if (!ctx.hw)
      models::throw_input_error("scenario " + info.name, key,
                                fmt::format("a {} for --hw's device (a system's devices name theirs in its file)", what),
                                value);
    if (!hw) hw = *ctx.hw;
    set(*hw);  // a misspelt name first
    if (!hw->charges_software_stack())
      models::throw_input_error("scenario " + info.name, key, fmt::format("a device whose engine charges a {} ({} is "
                                "a {} device: its engines run no host framework)", charged, hw->name, hw->kind),
                                value);
    ctx.hw = &*hw;
  };
  set_device_input("stack", in.stack, "stack", "stack", [&](models::HardwareSpec& h) {
    h.stack = models::load_software_stack(reg.path("stacks", in.stack));
  });
  set_device_input("host", in.host, "host", "stack's host work", [&](models::HardwareSpec& h) {
    h.host = models::load_host(reg.path("hosts", in.host));
  });
  if (ctx.hw) {
    // The device's engine through the deployment's cost layer: every forward a scenario costs on
    // it (optimiser points, tree and window searches, draft placements) is memoised and counted.
    device = std::make_unique<sim::SystemCosts>(models::single_device_system(*ctx.hw), in.engine);
    ctx.engine = &device->engine(0);
    ctx.deployment = device.get();
  }
  std::optional<models::Workload> workload;
  if (!in.model.empty()) {
    workload = make_workload(reg, in.model, in.algorithm, in.batch);
    ctx.workload = &*workload;
  }
  for (long long L : in.contexts)
    if (L < 0 || L > kMaxContext)
      models::throw_input_error("scenario " + info.name, "context", fmt::format("integers in [0, {}]", kMaxContext),
                                std::to_string(L));
  ctx.contexts = in.contexts;
  std::optional<AcceptanceData> data;
  if (!in.algorithm.empty()) {
    data = AcceptanceData::load(in.data.empty() ? reg.dir() + "/acceptance/aat_measurements.csv" : in.data);
    ctx.aat = [&data, sel = AatSelection{in.algorithm, in.model, in.task, in.source_table}](long long L) {
      return aat_source(*data, sel, L);
    };
  }
  ScenarioResult result = body ? body(ctx) : info.run(ctx);
  if (const auto status = validation_status(info.name, reg.dir())) result.validation = validation_footer(*status);
  return result;
}

}  // namespace search
