#include "search/plan/plan_scheme.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <mutex>
#include <string_view>
#include <variant>

#include "models/portable_path.hpp"
#include "models/shell_word.hpp"
#include "models/config_error.hpp"
#include "models/registry.hpp"

namespace search {

namespace {

models::Registry<std::string, PlanSchemeInfo>& table() {
  static models::Registry<std::string, PlanSchemeInfo> r("plan schemes");
  return r;
}

}  // namespace

PlanSchemeRegistration::PlanSchemeRegistration(PlanSchemeInfo info) {
  const std::string name = info.name;
  table().add(name, std::move(info));
}

std::vector<PlanSchemeInfo> plan_schemes() {
  std::vector<PlanSchemeInfo> t = table().values();
  std::stable_sort(t.begin(), t.end(), [](const auto& a, const auto& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  return t;
}

PlanCandidate untimed(std::string scheme, std::string placement, std::string status) {
  PlanCandidate c(std::move(scheme), std::move(placement));
  c.status = std::move(status);
  return c;
}

std::string reason_first(const std::string& message, const std::string& config_dir) {
  // "/abs/path/file.csv: no AAT measurements for ..." -> "no AAT measurements for ... (in
  // configs/acceptance/file.csv)": a table cell cut to fit keeps the reason, and a shared report
  // holds no absolute path of this machine (portable_path, as the manifests name their inputs).
  const auto colon = message.find(": ");
  if (message.empty() || message[0] != '/' || colon == std::string::npos) return message;
  const std::string path = message.substr(0, colon);
  if (path.find(' ') != std::string::npos) return message;
  return message.substr(colon + 2) + " (in " + models::portable_path(path, config_dir) + ")";
}

ScenarioInputs PlanSetup::inputs() const {
  ScenarioInputs in;
  // By name when it is a shipped model (scenarios look acceptance up by name), else by its file.
  in.model = configs->has_model(target.name) || target.source_file.empty() ? target.name : target.source_file;
  in.contexts = {context};
  in.batch = batch;
  in.engine = engine;
  in.engine_given = true;
  in.task = task;
  in.want_trace = want_trace;
  if (single_hw) in.system_spec = &system;
  return in;
}

namespace {

// Whether a command line names a config by `name`: `file` is the shipped config of that name in
// `folder` of `dir`, or there is no file (built in). Otherwise the user's own file is named by its
// path: its name alone is no config.
bool shipped_config(const std::string& dir, const char* folder, const std::string& name, const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  return file.empty() || fs::equivalent(fs::path(dir) / folder / (name + ".yaml"), file, ec);
}

}  // namespace

std::string PlanSetup::system_arg() const {
  return shipped_config(configs->dir(), "systems", system.name, system.source_file) ? system.name : system.source_file;
}

std::string PlanSetup::hw_arg(int device) const {
  const auto& hw = system.devices.at(std::size_t(device)).hardware;
  const bool named = shipped_config(configs->dir(), "hardware", hw.name, hw.source_file);
  return "--hw " + models::shell_word(named ? (single_hw ? hw_name : hw.name) : hw.source_file);
}

std::string PlanSetup::hw_args(int device) const {
  const auto& stack = system.devices.at(std::size_t(device)).hardware.stack;
  std::string args = hw_arg(device);
  if (stack.name == "bare") return args;
  const bool named = shipped_config(configs->dir(), "stacks", stack.name, stack.source_file);
  args += " --stack " + models::shell_word(named ? stack.name : stack.source_file);
  return args + host_arg(device);
}

std::string PlanSetup::host_arg(int device) const {
  const auto& host = system.devices.at(std::size_t(device)).hardware.host;
  if (host.source_file.empty()) return "";  // the built-in reference host: the default
  const bool named = shipped_config(configs->dir(), "hosts", host.name, host.source_file);
  return " --host " + models::shell_word(named ? host.name : host.source_file);
}

std::string scenario_flags(const std::string& scenario, const std::vector<std::string>& settings) {
  const auto info = search::scenario(scenario);
  std::string flags;
  for (const auto& setting : settings) {
    const auto eq = setting.find('=');
    const std::string key = setting.substr(0, eq), value = setting.substr(eq + 1);
    const auto* p = search::find_param(info, key);
    if (p && p->type == search::ParamType::boolean) flags += (value == "true" ? " --" : " --no-") + key;
    else flags += " --" + key + " " + models::shell_word(value);
  }
  return flags;
}

std::string scenario_command(const PlanSetup& s, const std::string& name, const std::vector<std::string>& params) {
  std::string cmd = "specdse scenario " + name;
  for (const auto& p : params) cmd += " --param " + models::shell_word(p);
  // Only the common inputs the scenario reads (`specdse scenario` refuses one it would ignore:
  // DuoDecoding's context is its `prompt` parameter, in `params`).
  const ScenarioInfo info = scenario(name);
  auto reads = [&](const std::string& input) {
    return std::find(info.inputs.begin(), info.inputs.end(), input) != info.inputs.end() || find_param(info, input);
  };
  if (reads("model")) cmd += " --model " + s.target.name;
  if (reads("context")) cmd += fmt::format(" --context {}", s.context);
  if (reads("batch") && s.batch > 1) cmd += fmt::format(" --batch {}", s.batch);
  if (reads("engine") && s.engine != "roofline") cmd += " --engine " + s.engine;
  return cmd;
}

std::string model_arg(const models::ConfigRegistry& configs, const models::ModelSpec& model) {
  const std::string base =
      shipped_config(configs.dir(), "models", model.name, model.source_file) ? model.name : model.source_file;
  // A quantised variant keeps its format (ConfigRegistry::model reads NAME@FORMAT back).
  return model.weight_format.empty() ? base : base + "@" + model.weight_format;
}

std::string reproduce_command(const PlanSetup& s, const std::string& args, bool with_batch) {
  std::string cmd = fmt::format("specdse {} --model {} --context {}", args, s.target.name, s.context);
  if (with_batch && s.batch > 1) cmd += fmt::format(" --batch {}", s.batch);
  if (s.engine != "roofline") cmd += " --engine " + s.engine;
  return cmd;
}

}  // namespace search
