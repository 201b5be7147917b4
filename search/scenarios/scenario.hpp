#pragma once
// Scenarios: one paper's system (or a user's) as a solver that turns (system or hardware,
// workload, parameters) into a table of results. Each lives in its own file under
// search/scenarios/ with one static ScenarioRegistration (Ramulator 2 style, as
// models/engine_registry.hpp), so a new scenario is one file plus that one line.
//
// A scenario declares each of its parameters once (ScenarioParam: key, type, unit, default,
// range, help). Everything else is generated from that declaration, with the same key
// everywhere: `specdse scenario NAME --param KEY=VALUE`, the scenario's own subcommand
// `specdse NAME --KEY VALUE` (when it asks for one), the Python keyword argument (KEY with
// dashes as underscores), a sweep axis (`scenario: NAME` in a sweep spec) and the manifest.
// Values are validated against the declaration before the scenario runs, so a scenario reads
// typed values (ScenarioContext::integer, real, ...) that are already in range.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "models/config_registry.hpp"
#include "models/hardware_spec.hpp"
#include "models/latency_engine.hpp"
#include "models/system_spec.hpp"
#include "search/optimizer.hpp"

namespace sim {
class SystemCosts;
}

namespace search {

enum class ParamType { integer, real, text, choice, boolean, integer_list, real_list };
std::string to_string(ParamType type);

struct ScenarioParam {
  std::string key;            // CLI flag and --param key (dashes); Python uses underscores
  ParamType type = ParamType::text;
  std::string default_value;  // as text, as a user would type it
  std::string unit;           // SI unit or a count ("s", "ms", "tokens"); empty when none
  // Inclusive bounds of a number (and of each element of a list).
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // ParamType::choice
  std::string help;
};

// Declarations read like the table they are: param::integer("tokens", 2000, 1, 1e6, "tokens",
// "tokens per run").
namespace param {
ScenarioParam integer(std::string key, long long default_value, double min, double max, std::string unit,
                      std::string help);
ScenarioParam real(std::string key, double default_value, double min, double max, std::string unit,
                   std::string help);
// A number that may stay unset (empty; ScenarioContext::text(key) is "" then).
ScenarioParam optional_real(std::string key, double min, double max, std::string unit, std::string help);
ScenarioParam text(std::string key, std::string default_value, std::string help);
ScenarioParam choice(std::string key, std::string default_value, std::vector<std::string> choices, std::string help);
ScenarioParam boolean(std::string key, bool default_value, std::string help);
// A comma list; an integer list also takes ranges (`8-16`: every integer from 8 to 16).
ScenarioParam integers(std::string key, std::string default_value, double min, double max, std::string unit,
                       std::string help);
ScenarioParam reals(std::string key, std::string default_value, double min, double max, std::string unit,
                    std::string help);

// Parameters many scenarios share, declared once so their key, range and help agree.
// --system: a system config (configs/systems) or a path; `detail` is appended to the help.
ScenarioParam system(std::string default_value, const std::string& detail = "");
// --draft-device: which device of the system runs the draft.
ScenarioParam draft_device();
// --acceptance: an acceptance process band; `use` says what the scenario takes from it.
ScenarioParam acceptance_band(std::string default_value, const std::string& use);
// --seed: the seed of the scenario's random draws (`of` names them).
ScenarioParam seed(const std::string& of);
}  // namespace param

// What is wrong with `value` for the declaration ("expected an integer in [1, 64] tokens, got
// 'x'"); empty when nothing is.
std::string param_problem(const ScenarioParam& p, const std::string& value);
// Checks `value` against the declaration; returns it normalised (lists without spaces);
// InputError "scenario NAME: --param KEY: expected ..., got 'VALUE'" otherwise.
std::string validate_param(const std::string& scenario, const ScenarioParam& p, const std::string& value);
// A declaration's accepted values in words ("an integer in [1, 1024] tokens").
std::string describe_param(const ScenarioParam& p);

struct ScenarioContext {
  std::string scenario;                              // the scenario's name, for errors
  const models::ConfigRegistry* configs = nullptr;   // for scenarios loading more (systems)
  const models::HardwareSpec* hw = nullptr;          // --hw; null when not given
  // A system given in memory (`plan --hw` runs a one-device system) instead of the `system`
  // parameter; scenarios that take a system read it through system_spec().
  const models::SystemSpec* system = nullptr;
  const models::LatencyEngine* engine = nullptr;     // --engine for --hw; null without --hw
  // --hw's device as a one-device deployment (sim/system/system_costs.hpp): `engine` is its view;
  // memory fits go through it too. Null without --hw.
  const sim::SystemCosts* deployment = nullptr;
  std::string engine_name = "roofline";              // --engine: what times every device
  bool want_trace = false;                           // --trace-out: name the timeline's tasks
  const models::Workload* workload = nullptr;        // --model (and --algorithm); null without --model
  std::vector<long long> contexts;                   // --context
  std::string task = "govreport";                    // --task: whose measured acceptance to use
  // Measured AAT and its fit for the workload's algorithm and model at a context; empty
  // without --algorithm.
  std::function<AatSource(long long context)> aat;
  std::string data;          // --data: the AAT CSV (empty: the config folder's measurements)
  std::string source_table;  // --source-table: only AAT rows of this source table (empty: any)
  std::map<std::string, std::string> params;         // every declared parameter, validated, defaults filled in
  // What the caller set, by name (parameter keys and common inputs such as "batch", "task",
  // "context"): a value equal to the default was still given. Conflicts are found by presence.
  std::set<std::string> given;
  std::vector<ScenarioParam> declared;               // the scenario's declarations (list bounds)

  // The system to run on: the in-memory one when given, else the `system` parameter's config
  // (a name in configs/systems or a path); InputError when there is neither.
  models::SystemSpec system_spec() const;
  // InputError "scenario NAME: expected OPTION, got none" unless `given`.
  void require(bool given, const std::string& option) const;
  // Whether the caller set parameter or common input `key` (see `given`).
  bool was_given(const std::string& key) const { return given.count(key) > 0; }
  // A declared parameter's value (validated against its declaration when the context was made).
  long long integer(const std::string& key) const;
  double real(const std::string& key) const;
  const std::string& text(const std::string& key) const;
  bool flag(const std::string& key) const;
  std::vector<long long> integers(const std::string& key) const;  // sorted, each value once
  std::vector<double> reals(const std::string& key) const;
};

// The one result schema: named columns (SI units in the name), one row per record (a method, a
// window, a batch), a summary line. experiments/ turns it into tables, CSV, JSON, plots and
// DataFrames with one adapter.
using ScenarioCell = std::variant<std::string, std::int64_t, double>;
// A further table a run computes beside its result (e.g. tree-sd's every evaluated x).
struct ScenarioTable {
  std::vector<std::string> columns;
  std::vector<std::vector<ScenarioCell>> rows;
};
struct ScenarioResult {
  std::vector<std::string> columns;
  std::vector<std::vector<ScenarioCell>> rows;
  std::string footer;
  // The footer's facts as fields, for machine-readable output (JSON keys, CSV '#' lines, Python
  // DataFrame.attrs): e.g. plan's winner, runner-up, engine and caveats. In order, a key once.
  // Text, a list of texts, a number or a yes/no fact (JSON keeps the type; CSV writes it as text).
  using MetaValue = std::variant<std::string, std::vector<std::string>, double, std::int64_t, bool>;
  std::vector<std::pair<std::string, MetaValue>> meta;
  // The columns a text table keeps when all would be wider than 120 characters (empty: all).
  std::vector<std::string> narrow_columns;
  // What this scenario was validated against and where it disagrees with its paper, for the
  // front ends to print after the footer (set by the runner from configs/reference; empty: none).
  std::string validation;
  // Writes the run's timeline (the best method's, where a scenario compares several) as Chrome
  // trace-event JSON; empty when the scenario keeps no timeline.
  std::function<void(std::ostream&)> write_trace;
  // Per row, that row's own timeline in the same format, where the scenario keeps one (a scenario
  // comparing methods keeps each method's); an empty function, or no entry, where it keeps none.
  // `plan` writes its winner's from here.
  std::vector<std::function<void(std::ostream&)>> row_traces;
  // Further tables from the same run, by name (tree-sd's "curve": P_eff at every evaluated x), for
  // the Python module; the command line prints `rows`.
  std::map<std::string, ScenarioTable> tables;
};

using ScenarioRun = std::function<ScenarioResult(const ScenarioContext&)>;

struct ScenarioInfo {
  std::string name, description;
  std::vector<ScenarioParam> params;
  ScenarioRun run;
  // The subcommand generated for it (`specdse COMMAND`, flags from `params`), e.g. "specpipe",
  // "eagle"; empty: reachable through `specdse scenario NAME` only.
  std::string command;
  // The common inputs it takes (its generated subcommand has just these flags) and those it
  // cannot run without (required flags there): names of experiments' scenario_input_names(),
  // "hw", "model", "algorithm", "context", "batch", "task", "data", "source-table", "engine".
  std::vector<std::string> inputs;
  std::vector<std::string> required_inputs;
  // A plot script of experiments/plots/ (without .py) that draws the result's CSV; its
  // generated subcommand then takes --plot FILE.png. Empty: no plot.
  std::string plot;
  // It prints its own progress on stderr (plan): the command line adds no "still running" lines.
  bool reports_progress = false;
};

struct ScenarioRegistration {
  explicit ScenarioRegistration(ScenarioInfo info);
};

// Registered scenarios, by name.
std::vector<ScenarioInfo> scenarios();
// The scenario `name`; InputError listing the registered ones when there is none.
ScenarioInfo scenario(const std::string& name);
// A scenario's declaration of `key`; null when it declares none.
const ScenarioParam* find_param(const ScenarioInfo& info, const std::string& key);
// Its context's parameters: the declared defaults overridden by KEY=VALUE settings, every value
// validated; InputError naming an undeclared key (with the closest declared one) or a bad value.
std::map<std::string, std::string> scenario_params(const ScenarioInfo& info,
                                                   const std::vector<std::string>& settings);

}  // namespace search
