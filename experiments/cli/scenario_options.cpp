#include "experiments/cli/scenario_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/scenario_runner.hpp"
#include "models/config_error.hpp"

namespace experiments {

namespace {

bool declares(const search::ScenarioInfo* info, const std::string& key) {
  return info && search::find_param(*info, key) != nullptr;
}

// Whether the command gets the common input `name`: `specdse scenario` takes every one; a
// scenario's own command those it takes and does not declare as a parameter.
bool takes(const search::ScenarioInfo* info, const std::string& name) {
  if (!info) return true;
  return !declares(info, name) && std::find(info->inputs.begin(), info->inputs.end(), name) != info->inputs.end();
}

// What --help shows after the flag: the value's kind.
std::string type_name(const search::ScenarioParam& p) {
  switch (p.type) {
    case search::ParamType::integer: return "INT";
    case search::ParamType::real: return "NUMBER";
    case search::ParamType::integer_list: return "INTS";
    case search::ParamType::real_list: return "NUMBERS";
    case search::ParamType::choice: return "CHOICE";
    case search::ParamType::boolean: return "";
    case search::ParamType::text: return "NAME";
  }
  return "VALUE";
}

}  // namespace

std::string param_help(const search::ScenarioParam& p) {
  if (p.type == search::ParamType::text) return p.help;  // a name: the help says which
  return fmt::format("{} ({})", p.help, search::describe_param(p));
}

void add_scenario_inputs(CLI::App& sub, ScenarioCommandArgs& a, const search::ScenarioInfo* info) {
  auto& in = a.inputs;
  if (takes(info, "hw")) {
    sub.add_option("--hw", in.hw, "Hardware config name or path");
    // The scenario's own `stack` parameter (the EAGLE dispatcher's) is its flag instead.
    if (!declares(info, "stack"))
      sub.add_option("--stack", in.stack,
                     std::string("Software stack --hw's device runs (configs/stacks name or YAML path; default: ") +
                         (info && info->name == "serve" ? "the kind's serving stack, vLLM with CUDA graphs on a GPU)"
                                                        : "none, kernels only)"));
    sub.add_option("--host", in.host,
                   "Host CPU that runs --hw's stack (configs/hosts name or YAML path: its dispatch_time_scale "
                   "scales every host figure of the stack; default: reference, the stacks' own hosts)");
  }
  if (takes(info, "model")) sub.add_option("--model", in.model, "Target model: config name (configs/models), NAME@FORMAT, or a YAML path");
  if (takes(info, "algorithm")) {
    // What drafts differs by scenario: the EAGLE dispatcher's head, tree SD's drafter.
    sub.add_option("--algorithm", in.algorithm,
                   info && info->name == "eagle-dispatcher"
                       ? "EAGLE head to draft with (configs/algorithms; default eagle-dense3-chain, shaped for the target)"
                       : "SD algorithm (configs/algorithms) or draft model name");
    // latency's / window's name for the same thing
    if (!declares(info, "draft")) {
      auto* algorithm = sub.get_option("--algorithm");
      auto* alias = sub.add_option("--draft", in.algorithm, "Same as --algorithm (the name latency and window use)");
      const bool required = info && std::find(info->required_inputs.begin(), info->required_inputs.end(),
                                              "algorithm") != info->required_inputs.end();
      // Required through either spelling, so CLI11's own ->required() cannot say it; the help
      // line says it as CLI11 does for the others.
      if (required) algorithm->type_name("TEXT REQUIRED");
      sub.callback([algorithm, alias, required] {
        if (required && algorithm->count() + alias->count() == 0) throw CLI::RequiredError("--algorithm");
        if (algorithm->count() > 0 && alias->count() > 0) throw CLI::ExcludesError("--algorithm", "--draft");
      });
    }
  }
  if (takes(info, "context")) sub.add_option("--context", a.context, "Context lengths: 128,1024 or a range");
  if (takes(info, "batch"))
    sub.add_option("--batch", in.batch, "Sequences decoded together")->default_val(1)->check(integer_in(1, kMaxBatch));
  if (takes(info, "task")) sub.add_option("--task", in.task, "Task whose measured AAT to use")->default_val("govreport");
  if (takes(info, "data")) sub.add_option("--data", in.data, "AAT CSV (default: configs/acceptance/aat_measurements.csv)");
  if (takes(info, "source-table")) sub.add_option("--source-table", in.source_table, "Only AAT rows from this source table");
  if (takes(info, "engine")) add_engine_option(sub, in.engine);
  add_format_option(sub, a.format);
  if (info)
    for (const auto& name : info->required_inputs)
      if (auto* opt = sub.get_option_no_throw("--" + name); opt && !(name == "algorithm" && sub.get_option_no_throw("--draft")))
        opt->required();
}

void add_scenario_param_flags(CLI::App& sub, ScenarioCommandArgs& a, const search::ScenarioInfo& info) {
  for (const auto& p : info.params) {
    if (p.type == search::ParamType::boolean) {
      // --KEY / --no-KEY, as a switch reads.
      a.switches[p.key] = p.default_value == "true";
      sub.add_flag("--" + p.key + ",!--no-" + p.key, a.switches[p.key],
                   fmt::format("{} (default: {})", p.help, p.default_value == "true" ? "on" : "off"));
      continue;
    }
    auto* opt = sub.add_option("--" + p.key, a.values[p.key], param_help(p))->default_val(p.default_value);
    opt->type_name(type_name(p));
    // The declaration's validation; CLI11 puts the flag's name before the message.
    opt->check(CLI::Validator([p](std::string& v) { return search::param_problem(p, v); }, "", p.key));
  }
}

void refuse_untaken_inputs(const CLI::App& sub, const search::ScenarioInfo& info) {
  // Each flag of the generic command and the common input it sets: the flags are the common
  // inputs' names (scenario_input_names, as add_scenario_inputs adds them), --stack and --host belonging to
  // --hw's device, plus --draft, latency's and window's spelling of --algorithm.
  std::vector<std::pair<std::string, std::string>> flags;
  for (const auto& input : scenario_input_names())
    flags.emplace_back("--" + input, input == "stack" || input == "host" ? "hw" : input);
  flags.emplace_back("--draft", "algorithm");
  std::vector<std::string> taken;
  for (const auto& name : info.inputs) taken.push_back("--" + name);
  for (const auto& [flag, name] : flags) {
    if (sub.count(flag) == 0) continue;
    auto listed = [&](const std::string& n) { return std::find(info.inputs.begin(), info.inputs.end(), n) != info.inputs.end(); };
    const bool takes_it = listed(name) || (flag == "--stack" && listed("stack"));
    if (!takes_it && !declares(&info, name))
      throw models::InputError(fmt::format("scenario {}: {}: not an input of this scenario, it would be ignored (it "
                                           "takes {}; its own settings: --param KEY=VALUE, see scenario --list)",
                                           info.name, flag, taken.empty() ? "none" : fmt::format("{}", fmt::join(taken, ", "))));
  }
}

void finish_scenario_inputs(CLI::App& sub, ScenarioCommandArgs& a, const search::ScenarioInfo* info) {
  // Given but empty (--context "") is a slip, not the default context.
  if (!a.context.empty() || (takes(info, "context") && sub.count("--context") > 0))
    a.inputs.contexts = parse_int_list("--context", a.context, 0, kMaxContext);
  a.inputs.engine_given = takes(info, "engine") && sub.count("--engine") > 0;
  a.inputs.want_trace = !a.trace_out.empty() || !a.report.empty();  // a report draws the timeline
  for (const auto& name : scenario_input_names())
    if (takes(info, name) && sub.count("--" + name) > 0) a.inputs.given.insert(name);
  if (!info) return;
  for (const auto& p : info->params) {
    if (sub.count("--" + p.key) == 0) continue;
    const bool on_off = p.type == search::ParamType::boolean;
    a.inputs.params.push_back(p.key + "=" + (on_off ? (a.switches[p.key] ? "true" : "false") : a.values[p.key]));
  }
}

}  // namespace experiments
