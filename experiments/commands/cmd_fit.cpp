// specdse fit: Ceres fit of AAT(x) = A + B ln(x - C) per (algorithm, model, task, context).
#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

#include "experiments/cli/acceptance_source.hpp"
#include "experiments/cli/cli_common.hpp"
#include "models/config_error.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/acceptance/aat_fit.hpp"

namespace experiments {
namespace {

struct FitArgs {
  std::string data, algorithm, model, task, context, format;
  std::string source_table;
  bool ad_anchor = true;
};

int run_fit(const FitArgs& a, const GlobalOptions& g) {
  const auto data = search::AcceptanceData::load(acceptance_csv_path(registry(g), a.data));
  search::AatQuery q;
  if (!a.algorithm.empty()) q.algorithm = a.algorithm;
  if (!a.model.empty()) q.target_model = a.model;
  if (!a.task.empty()) q.task = a.task;
  if (!a.source_table.empty()) q.source_table = a.source_table;
  std::vector<long long> contexts;
  if (!a.context.empty()) contexts = parse_int_list("--context", a.context, 0);
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
  if (groups.empty()) throw models::InputError(fmt::format("{}: no measurements match the filters", data.path()));
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

const RegisterCommand reg{
    "fit", "Fit AAT(x) = A + B ln(x - C) to measured acceptance data (Ceres)",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<FitArgs>();
      sub.add_option("--data", a->data, "AAT CSV (default: <config dir>/acceptance/aat_measurements.csv)");
      sub.add_option("--algorithm", a->algorithm, "Only this algorithm (e.g. longspec-tree)");
      sub.add_option("--model", a->model, "Only this target model");
      sub.add_option("--task", a->task, "Only this task (e.g. govreport)");
      sub.add_option("--context", a->context, "Only these contexts: 128,1024 or 128-16384");
      sub.add_option("--source-table", a->source_table, "Only rows from this source table (e.g. t3-4)");
      sub.add_flag("!--no-ad-anchor", a->ad_anchor, "Fit the measurements only, without the exact point AAT(1) = 1");
      add_format_option(sub, a->format);
      return [a, &g] { return run_fit(*a, g); };
    },
    20};

}  // namespace
}  // namespace experiments
