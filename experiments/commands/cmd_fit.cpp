// specdse fit: Ceres fit of AAT(x) = A + B ln(x - C) per (algorithm, model, task, context), or
// (--statistics FILE) of the acceptance process to a file of acceptance statistics
// (search/acceptance/acceptance_statistics.hpp): parameters, residuals and the band of fits the
// statistics leave open, optionally written as a process band for the scenarios (--out), and
// (--scenario NAME) the band's consequence for a scenario that draws from one: the scenario run
// on the fitted band, its rows carrying the low / high over the band's fits.
#include <fmt/format.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "sim/io/output_path.hpp"
#include "sim/io/temp_files.hpp"
#include "experiments/cli/acceptance_source.hpp"
#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/scenario_runner.hpp"
#include "models/config_error.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/acceptance/aat_fit.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "experiments/output/statistics_fit_table.hpp"
#include "experiments/output/table.hpp"

namespace experiments {
namespace {

struct FitArgs {
  std::string data, algorithm, model, task, context, format;
  std::string source_table;
  bool ad_anchor = true;
  std::string statistics, out;
  // --scenario: the scenario run on the fitted band, with its own inputs.
  std::string scenario, hw, engine;  // engine empty: not given (roofline)
  std::vector<std::string> params;
};

// The scenarios that draw from a process band: those declaring an `acceptance` parameter.
std::vector<std::string> band_scenarios() {
  std::vector<std::string> names;
  for (const auto& info : search::scenarios())
    if (search::find_param(info, "acceptance")) names.push_back(info.name);
  return names;
}

// Checks --scenario before the fit (which can take a minute), so a typo fails at once.
void check_band_scenario(const FitArgs& a) {
  const search::ScenarioInfo info = search::scenario(a.scenario);
  if (!search::find_param(info, "acceptance"))
    throw models::InputError(fmt::format("fit --scenario: {} does not draw from an acceptance process band "
                                         "(scenarios that do: {})",
                                         a.scenario, fmt::join(band_scenarios(), ", ")));
  for (const auto& kv : a.params)
    if (kv.rfind("acceptance=", 0) == 0)
      throw models::InputError("fit --scenario: --param acceptance=...: the scenario runs on the band this fit writes");
  search::scenario_params(info, a.params);  // undeclared keys and bad values, before fitting
  for (const auto& need : info.required_inputs) {
    if (need == "model" && !a.model.empty()) continue;
    if (need == "context" && !a.context.empty()) continue;
    if (need == "hw" && !a.hw.empty()) continue;
    if (need == "algorithm" && !a.algorithm.empty()) continue;
    throw models::InputError(fmt::format("fit --scenario {}: expected --{}, got none", a.scenario, need));
  }
}

// The scenario on the band at `band_path`, printed as its own table.
void run_band_scenario(const FitArgs& a, const std::string& band_path, const GlobalOptions& g) {
  ScenarioInputs in;
  in.hw = a.hw;
  in.model = a.model;
  in.algorithm = a.algorithm;
  in.engine = a.engine.empty() ? "roofline" : a.engine;
  in.engine_given = !a.engine.empty();
  if (!a.context.empty()) in.contexts = parse_int_list("--context", a.context, 0, kMaxContext);
  in.params = a.params;
  in.params.push_back("acceptance=" + band_path);
  const search::ScenarioResult r = run_scenario(a.scenario, in, registry(g));
  fmt::print("\n");
  print_table(scenario_table(r), a.format);
}

int run_process_fit(const FitArgs& a, const GlobalOptions& g) {
  if (!a.scenario.empty()) check_band_scenario(a);
  sim::check_run_outputs({{"--out", a.out}}, {{"--statistics", a.statistics}});
  if (!a.out.empty()) sim::check_output_target(a.out);
  const search::StatisticsFile file = search::read_statistics_file(a.statistics);
  const auto rep = search::fit_statistics(file, [&](std::size_t done, std::size_t total) {
    if (total > 1) fmt::print(stderr, "fit: {} / {} fits\n", done, total);
  });
  const Table t = statistics_fit_table(file, rep);
  // The band's file before the table: a failed output never follows a printed result.
  if (!a.out.empty())
    write_file_atomic(a.out, search::format_process_band(
                                 rep.band, statistics_band_header(
                                               file, fmt::format("`specdse fit --statistics {}`", a.statistics))));
  // Without --out the scenario reads the band from a temporary file, removed after the run;
  // written before the table too.
  std::string band_path = a.out;
  std::filesystem::path temporary;
  if (!a.scenario.empty() && band_path.empty()) {
    temporary = std::filesystem::path(sim::temporary_folder("fit --scenario's band without --out")) /
                fmt::format("specdse-fit-band-{}.yaml", ::getpid());
    write_file_atomic(temporary.string(), search::format_process_band(rep.band, "Temporary band of specdse fit --scenario."));
    band_path = temporary.string();
  }
  struct Remove {
    std::filesystem::path p;
    ~Remove() {
      std::error_code ec;
      if (!p.empty()) std::filesystem::remove(p, ec);
    }
  } remove{temporary};
  print_table(t, a.format);
  if (!a.scenario.empty()) run_band_scenario(a, band_path, g);
  return 0;
}

int run_fit(const FitArgs& a, const GlobalOptions& g) {
  // The scenario's own options mean nothing without --scenario.
  if (a.scenario.empty() && (!a.params.empty() || !a.hw.empty() || !a.engine.empty()))
    throw models::InputError(fmt::format("fit: {} applies to --scenario NAME (a scenario run on the fitted band)",
                                         !a.params.empty() ? "--param" : !a.hw.empty() ? "--hw" : "--engine"));
  // Two tables (the fit's, the scenario's) are two CSV or text tables; JSON would be two documents.
  if (!a.scenario.empty() && a.format == "json")
    throw models::InputError("fit --scenario: --format json would print two JSON documents; use table or csv");
  if (!a.statistics.empty()) {
    // With --scenario, --model, --algorithm and --context are the scenario's.
    const bool scenario_inputs = !a.scenario.empty();
    if (!a.data.empty() || (!scenario_inputs && (!a.model.empty() || !a.context.empty() || !a.algorithm.empty())) ||
        !a.task.empty() || !a.source_table.empty())
      throw models::InputError("fit: --statistics fits the acceptance process and takes no AAT filters (--data, --algorithm, ...)");
    return run_process_fit(a, g);
  }
  if (!a.out.empty()) throw models::InputError("fit: --out writes a process band and needs --statistics FILE");
  if (!a.scenario.empty())
    throw models::InputError("fit: --scenario runs a scenario on a fitted band and needs --statistics FILE");
  const auto data = search::AcceptanceData::load(acceptance_csv_path(registry(g), a.data));
  search::AatQuery q;
  if (!a.algorithm.empty()) q.algorithm = a.algorithm;
  if (!a.model.empty()) q.target_model = a.model;
  if (!a.task.empty()) q.task = a.task;
  if (!a.source_table.empty()) q.source_table = a.source_table;
  std::vector<long long> contexts;
  if (!a.context.empty()) contexts = parse_int_list("--context", a.context, 0, kMaxContext);
  using Key = std::tuple<std::string, std::string, std::string, long long>;
  std::map<Key, std::vector<search::AatPoint>> groups;
  std::map<Key, std::set<std::string>> tables;  // source tables pooled into each group's fit
  for (const auto& r : data.select(q)) {
    if (!contexts.empty() && std::find(contexts.begin(), contexts.end(), r.context) == contexts.end()) continue;
    groups[{r.algorithm, r.target_model, r.task, r.context}].push_back({double(r.x()), r.aat});
    tables[{r.algorithm, r.target_model, r.task, r.context}].insert(r.source_table);
  }
  if (groups.empty() && q.source_table) {
    q.source_table.reset();
    throw models::InputError(fmt::format("{}: no measurements from source table '{}' match the filters (tables: {})",
                                         data.path(), a.source_table, fmt::join(data.source_tables(q), ", ")));
  }
  if (groups.empty()) {
    // Name the filter that empties the selection and what it could have been: drop the filters
    // one at a time from the last (context, task, model, algorithm) and list the values there.
    std::string given;
    for (const auto& [flag, value] : {std::pair{"--algorithm", a.algorithm}, std::pair{"--model", a.model},
                                      std::pair{"--task", a.task}, std::pair{"--context", a.context}})
      if (!value.empty()) given += fmt::format(" {} {}", flag, value);
    std::string hint;
    if (!contexts.empty() && !data.select(q).empty()) {
      hint = fmt::format(" (contexts there: {})", fmt::join(data.contexts(q), ", "));
    } else {
      // Each filter: the query's field, the measurement's, and what its values are called.
      struct Filter {
        std::optional<std::string> search::AatQuery::*query;
        std::string search::AatMeasurement::*row;
        const char* what;
      };
      const Filter filters[] = {{&search::AatQuery::task, &search::AatMeasurement::task, "tasks"},
                                {&search::AatQuery::target_model, &search::AatMeasurement::target_model, "models"},
                                {&search::AatQuery::algorithm, &search::AatMeasurement::algorithm, "algorithms"}};
      for (const auto& f : filters) {
        if (!(q.*f.query)) continue;
        search::AatQuery wider = q;
        wider.*f.query = std::nullopt;
        std::set<std::string> values;
        for (const auto& r : data.select(wider)) values.insert(r.*f.row);
        if (values.empty()) continue;
        hint = fmt::format(" ({} there: {})", f.what, fmt::join(values, ", "));
        break;
      }
    }
    throw models::InputError(fmt::format("{}: no measurements match{}{}", data.path(),
                                         given.empty() ? " the filters" : given, hint));
  }
  // c_at_bound: the fit stopped on a bound of C (search/acceptance/aat_fit.hpp); source_tables:
  // the tables whose rows the fit pooled (several unless --source-table picks one).
  Table t({"algorithm", "model", "task", "context", "a", "b", "c", "r2", "rmse", "n", "c_at_bound", "source_tables"});
  for (auto& [key, pts] : groups) {
    const auto& [alg, model, task, L] = key;
    // AAT(1) = 1 exactly (autoregressive decoding); the optimiser fits with it too.
    if (a.ad_anchor) pts.insert(pts.begin(), {1.0, 1.0});
    const auto f = search::fit_aat(pts, fmt::format("{}: {} {} {} context {}", data.path(), alg, model, task, L));
    t.add_row({alg, model, task, integer(L), num(f.a), num(f.b), num(f.c), num(f.r2), num(f.rmse), integer(f.n),
               text(f.c_at_bound ? "yes" : "no"), text(fmt::format("{}", fmt::join(tables[key], " + ")))});
  }
  print_table(t, a.format);
  return 0;
}

const RegisterCommand fit_registration{
    "fit", "Fit AAT(x) = A + B ln(x - C) to measured acceptance data, or the acceptance process to statistics (Ceres)",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<FitArgs>();
      sub.add_option("--data", a->data, "AAT CSV (default: <config dir>/acceptance/aat_measurements.csv)");
      sub.add_option("--algorithm", a->algorithm,
                     "Only this algorithm (e.g. longspec-tree; with --statistics --scenario: the scenario's)");
      sub.add_option("--model", a->model, "Only this target model (with --statistics --scenario: the scenario's target)");
      sub.add_option("--task", a->task, "Only this task (e.g. govreport)");
      sub.add_option("--context", a->context,
                     "Only these contexts: 128,1024 or 128-16384 (with --statistics --scenario: the scenario's)");
      sub.add_option("--source-table", a->source_table, "Only rows from this source table (e.g. t3-4)");
      sub.add_flag("!--no-ad-anchor", a->ad_anchor, "Fit the measurements only, without the exact point AAT(1) = 1");
      sub.add_option("--statistics", a->statistics,
                     "Fit the acceptance process to this statistics file (YAML; e.g. "
                     "configs/acceptance/statistics/paper003-table4.yaml)");
      sub.add_option("--out", a->out, "With --statistics: write the band of consistent fits here (YAML)");
      sub.add_option("--scenario", a->scenario,
                     "With --statistics: run this scenario on the fitted band and print its table, each row's low / "
                     "high over the band (scenarios with an acceptance parameter: chain-sd, duodecoding, specpipe, "
                     "tree-sd)");
      sub.add_option("--param", a->params, "With --scenario: scenario parameter KEY=VALUE (repeatable)");
      sub.add_option("--hw", a->hw, "With --scenario: hardware config (scenarios on one device, e.g. tree-sd)");
      sub.add_option("--engine", a->engine, "With --scenario: latency engine")
          ->check(CLI::IsMember({"roofline", "sim", "sim-clocked"}));
      add_format_option(sub, a->format);
      // The AAT curve fit's own options: a process fit to statistics reads no measured rows.
      for (const char* curve_only : {"--data", "--task", "--source-table", "--no-ad-anchor"})
        sub.get_option(curve_only)->excludes("--statistics");
      return [a, &g] { return run_fit(*a, g); };
    },
    20};

}  // namespace
}  // namespace experiments
