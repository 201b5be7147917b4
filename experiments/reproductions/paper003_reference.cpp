#include "experiments/reproductions/paper003_reference.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "models/reference_data.hpp"

namespace experiments {
namespace {

Paper003Tasks tasks(const models::YamlReader& row) {
  return {row.positive("mt"), row.positive("trans"), row.positive("math"), row.positive("code")};
}

}  // namespace

std::map<std::string, Paper003Tasks> paper003_table2(const std::string& config_dir) {
  const models::YamlReader r = models::open_reference("paper003_table2", config_dir);
  r.allow_only({"tokens_per_s"});
  std::map<std::string, Paper003Tasks> rows;
  for (const auto& row : r.map_list("tokens_per_s")) {
    row.allow_only({"strategy", "mt", "trans", "math", "code"});
    const std::string strategy = row.one_of("strategy", {"static:1", "static:2", "static:3", "dynamic"});
    if (!rows.emplace(strategy, tasks(row)).second) row.fail("strategy", "each strategy once", "'" + strategy + "' again");
  }
  if (!rows.count("static:1")) r.fail("tokens_per_s", "a static:1 row (the rows are shown relative to it)", "none");
  return rows;
}

Paper003Table3 paper003_table3(const std::string& config_dir) {
  const models::YamlReader r = models::open_reference("paper003_table3", config_dir);
  r.allow_only({"hardware_aware_budget", "tokens_per_s"});
  Paper003Table3 t;
  t.hardware_aware_budget = r.int_in("hardware_aware_budget", 1, std::numeric_limits<int>::max());
  for (const auto& row : r.map_list("tokens_per_s")) {
    row.allow_only({"budget_offset", "mt", "trans", "math", "code"});
    const int offset = row.int_in("budget_offset", -t.hardware_aware_budget + 1, std::numeric_limits<int>::max());
    if (!t.by_offset.emplace(offset, tasks(row)).second)
      row.fail("budget_offset", "each offset once", std::to_string(offset) + " again");
  }
  if (!t.by_offset.count(0)) r.fail("tokens_per_s", "a budget_offset: 0 row (the rows are shown relative to it)", "none");
  return t;
}

Paper003Processed paper003_fig4_processed(const std::string& config_dir) {
  const models::YamlReader r = models::open_reference("paper003_fig4", config_dir);
  r.allow_only({"processed_tokens_per_iteration"});
  const models::YamlReader p = r.child("processed_tokens_per_iteration");
  p.allow_only({"ad", "sps", "duodecoding"});
  constexpr long long kMax = std::numeric_limits<int>::max();
  return {p.int_in("ad", 1, kMax), p.int_in("sps", 1, kMax), p.int_in("duodecoding", 1, kMax)};
}

}  // namespace experiments
