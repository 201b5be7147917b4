#include "search/scenarios/duodecoding/duo_acceptance.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "models/config_error.hpp"
#include "search/acceptance/acceptance_statistics.hpp"
#include "models/reference_data.hpp"
#include "search/scenarios/duodecoding/duo_plan.hpp"
#include "search/scenarios/duodecoding/duo_scenario.hpp"
#include "search/scenarios/duodecoding/position_stream.hpp"

namespace search::duodecoding {

Paper003Table4 paper003_table4(const std::string& config_dir) {
  const models::YamlReader r = models::open_reference("paper003_table4", config_dir);
  r.allow_only({"top1_accepted_fraction", "confusion"});
  Paper003Table4 t;
  t.top1_accepted_fraction = r.fraction("top1_accepted_fraction");
  bool seen[2][2] = {};
  for (const auto& cell : r.map_list("confusion")) {
    cell.allow_only({"top1_accepted", "sequences", "fraction"});
    const int acc = cell.boolean("top1_accepted") ? 1 : 0;
    const int many = cell.one_of("sequences", {"one", "more"}) == "more" ? 1 : 0;
    if (seen[acc][many]) cell.fail("sequences", "each (top1_accepted, sequences) cell once", "a repeated cell");
    seen[acc][many] = true;
    t.confusion[std::size_t(acc)][std::size_t(many)] = cell.non_negative("fraction");
  }
  for (int acc : {0, 1})
    for (int many : {0, 1})
      if (!seen[acc][many])
        r.fail("confusion", "all four (top1_accepted, sequences) cells",
               fmt::format("no cell top1_accepted: {}, sequences: {}", acc ? "true" : "false", many ? "more" : "one"));
  const double accepted = t.confusion[1][0] + t.confusion[1][1];
  if (std::abs(accepted - t.top1_accepted_fraction) > 1e-9)
    r.fail("top1_accepted_fraction", fmt::format("the sum of the top1_accepted cells ({})", accepted),
           fmt::format("{}", t.top1_accepted_fraction));
  return t;
}

int paper003_measured_budget(const std::string& config_dir) {
  const models::YamlReader r = models::open_reference("paper003_table3", config_dir);
  return r.int_in("hardware_aware_budget", 1, 4096);
}

std::array<std::array<double, 2>, 2> simulated_check_confusion(const AcceptanceProcess& process, int budget,
                                                               const SequencePolicy& policy, long long tokens,
                                                               std::uint64_t seed) {
  const Plan plan = plan_duo(PositionStream::from_process(process, kGeneratorTopK, seed), budget, policy, tokens);
  double total = 0;
  for (const auto& row : plan.confusion)
    for (long long c : row) total += double(c);
  std::array<std::array<double, 2>, 2> out{};
  if (total <= 0) return out;
  for (int a = 0; a < 2; ++a)
    for (int m = 0; m < 2; ++m) out[std::size_t(a)][std::size_t(m)] = double(plan.confusion[a][m]) / total;
  return out;
}

namespace {

// What a simulated check run depends on; one run serves the four cells of a table, so the last
// run per thread is remembered under its key.
struct CheckKey {
  AcceptanceProcessParams params;
  int budget = 0, max_sequences = 0;
  long long tokens = 0;
  std::uint64_t seed = 0;
  bool operator==(const CheckKey& o) const {
    return params == o.params && budget == o.budget && max_sequences == o.max_sequences && tokens == o.tokens &&
           seed == o.seed;
  }
};
struct CheckRun {
  CheckKey key;
  std::array<std::array<double, 2>, 2> cells{};
  bool valid = false;
};

const StatisticKindRegistration duodecoding_check_kind(
    "duodecoding_check", {"top1_accepted", "sequences", "budget", "max_sequences", "tokens", "seed"},
    "share of DuoDecoding's first-token checks in one cell of (top-1 accepted, one or more sequences), "
    "from a simulated run (paper 003 Table 4)",
    [](const models::YamlReader& row) {
      const int accepted = row.boolean("top1_accepted") ? 1 : 0;
      const int many = row.one_of("sequences", {"one", "more"}) == "more" ? 1 : 0;
      const int budget = row.int_in("budget", 1, 4096);
      const int max_sequences = row.int_in_or("max_sequences", 1, 64, 4);
      const long long tokens = row.int_in_or("tokens", 1000, 1000000, 15000);
      const auto seed = std::uint64_t(row.int_in_or("seed", 0, 1 << 30, 1));
      statistic_value_in(row, 0, 1, "a share of the checks: 0 to 1");
      return std::function<double(const AcceptanceProcess&)>([=](const AcceptanceProcess& p) {
        thread_local CheckRun last;
        const CheckKey key{p.params(), budget, max_sequences, tokens, seed};
        if (!(last.valid && last.key == key)) {
          SequencePolicy policy;
          policy.dynamic = true;
          policy.max_sequences = max_sequences;
          last.cells = simulated_check_confusion(p, budget, policy, tokens, seed);
          last.key = key;
          last.valid = true;
        }
        return last.cells[std::size_t(accepted)][std::size_t(many)];
      });
    });

}  // namespace

}  // namespace search::duodecoding
