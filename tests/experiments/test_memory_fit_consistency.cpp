// One memory-fit check, the same answer everywhere: for the same hardware or system, model,
// batch and context, `latency`, `system`, `plan`, `eagle`, `duo` and `specpipe` agree on whether
// the target fits (each scenario adds its own draft on top, so only the target-alone verdicts
// are compared: plain decoding's rows).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/experiments/cli_run.hpp"

namespace {
using cli_test::column;
using cli_test::csv;
using cli_test::run;

// Whether `specdse args` reports the target alone as fitting: exit 0 vs an "infeasible" error
// (`latency`), or the status cell of the row whose `key` column is `value`.
bool row_fits(const std::string& args, const std::string& key, const std::string& value, const std::string& status) {
  const auto r = run(args + " --format csv", false);
  INFO(args << "\n" << r.output);
  REQUIRE(r.status == 0);
  const auto rows = csv(r.output);
  const auto k = column(rows.front(), key), s = column(rows.front(), status);
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i][k] == value) return rows[i][s].find("infeasible") == std::string::npos;
  FAIL("no row with " << key << " = " << value);
  return false;
}

bool latency_fits(const std::string& args) {
  const auto r = run("latency " + args);
  INFO(args << "\n" << r.output);
  REQUIRE((r.status == 0 || r.output.find("infeasible") != std::string::npos));
  return r.status == 0;
}

}  // namespace

TEST_CASE("memory fit: latency and plan agree on one device across the capacity boundary") {
  struct Case {
    std::string hw, model;
    int batch;
    long long context;
  };
  std::size_t fits = 0, not_fits = 0;
  for (const Case& c : std::vector<Case>{{"h100-sxm", "llama-3.1-8b-instruct", 1, 1024},
                                         {"h100-sxm", "llama-3.1-8b-instruct", 30, 16384},
                                         {"h100-sxm", "llama-3.1-8b-instruct", 40, 16384},
                                         {"h100-sxm", "llama-3.1-70b", 1, 1024},
                                         {"rtx3090", "llama-3.1-8b-instruct", 4, 8192},
                                         {"rtx3090", "llama-3.1-8b-instruct", 1, 1024},
                                         {"v80", "llama-3.1-8b-instruct", 64, 32768},
                                         {"v80", "llama-3.1-8b-instruct", 1, 4096}}) {
    const std::string w = " --model " + c.model + " --batch " + std::to_string(c.batch) + " --context " +
                          std::to_string(c.context);
    INFO(c.hw << w);
    const bool by_latency = latency_fits("--hw " + c.hw + w + " --x 1");
    // plan's plain candidate (plan picks the device's default stack, as latency reads the config's).
    const bool by_plan = row_fits("plan --hw " + c.hw + w, "scheme", "plain", "status");
    CHECK(by_latency == by_plan);
    (by_latency ? fits : not_fits) += 1;
  }
  CHECK(fits >= 3);
  CHECK(not_fits >= 3);
}

TEST_CASE("memory fit: system agrees with the scenario commands on the paper testbeds") {
  // system's step row, the target alone.
  auto system_fits = [](const std::string& system, const std::string& model) {
    return row_fits("system --system " + system + " --model " + model, "kind", "step", "status");
  };
  // Maverick in BF16 over eight H100s: infeasible in `system`, in the dispatcher and in plan.
  CHECK_FALSE(system_fits("eagle-8xh100-nvlink", "llama-4-maverick"));
  CHECK_FALSE(row_fits("plan --system eagle-8xh100-nvlink --model llama-4-maverick", "scheme", "plain", "status"));
  CHECK_FALSE(row_fits("eagle --system eagle-8xh100-nvlink --model llama-4-maverick --batch 1", "batch", "1", "status"));
  CHECK(system_fits("eagle-8xh100-nvlink", "llama-3.1-70b"));
  CHECK(row_fits("eagle --system eagle-8xh100-nvlink --model llama-3.1-70b --batch 1", "batch", "1", "status"));
  // A 70B target on DuoDecoding's one A800: infeasible in `system` and a one-line error in `duo`.
  CHECK_FALSE(system_fits("duodecoding-a800-xeon", "llama-3.1-70b"));
  const auto duo = run("duo --system duodecoding-a800-xeon --model llama-3.1-70b --draft llama-68m --alpha 0.8");
  CHECK(duo.status == 2);
  CHECK(duo.output.find("infeasible") != std::string::npos);
  CHECK(system_fits("duodecoding-a800-xeon", "llama-2-7b"));
  // Paper 002's pipeline holds the 70B: system and specpipe's PP baseline agree.
  CHECK(system_fits("specpipe-8x3090-pcie", "llama-3.1-70b"));
  const auto sp = run("specpipe --system specpipe-8x3090-pcie --model llama-3.1-70b --tokens 50 --w 16 --k 4 "
                      "--no-boundary --format csv", false);
  CHECK(sp.status == 0);  // specpipe refuses a design that does not fit with a one-line error
  // Llama-4-Maverick does not fit the 8 x 24 GB pipeline: both say so.
  CHECK_FALSE(system_fits("specpipe-8x3090-pcie", "llama-4-maverick"));
  const auto big = run("specpipe --system specpipe-8x3090-pcie --model llama-4-maverick --tokens 50 --w 16 --k 4 "
                       "--no-boundary");
  CHECK(big.status == 2);
  CHECK(big.output.find("infeasible") != std::string::npos);
}
