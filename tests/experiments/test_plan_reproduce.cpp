// One question, one answer. Every timed `plan` row names the command that gives its number on its
// own: on every shipped system and on one GPU, each ok row's `reproduce` command, run as printed,
// prints the row's time between tokens (as milliseconds, seconds or tokens per second) in some
// cell of its output. And both engines charge the same stacks, so plan names the same winner on
// each and every row agrees within 10 % (docs/engines.md: what the SystemC engine adds).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/experiments/cli_run.hpp"

namespace {
using cli_test::column;
using cli_test::csv;
using cli_test::run;

// Whether some numeric cell of `rows` is the TBT `tbt_ms` in ms, s, or as tokens/s (relative 1e-6).
bool shows_tbt(const std::vector<std::vector<std::string>>& rows, double tbt_ms) {
  const double forms[] = {tbt_ms, tbt_ms * 1e-3, 1e3 / tbt_ms};
  for (std::size_t r = 1; r < rows.size(); ++r)
    for (const auto& cell : rows[r]) {
      char* end = nullptr;
      const double v = std::strtod(cell.c_str(), &end);
      if (cell.empty() || end != cell.c_str() + cell.size() || !std::isfinite(v)) continue;
      for (double f : forms)
        if (std::abs(v - f) <= 1e-6 * std::abs(f)) return true;
    }
  return false;
}

void check_reproduces(const std::string& plan_args) {
  const auto p = run("plan --format csv " + plan_args, false);
  INFO("plan " << plan_args << "\n" << p.output);
  REQUIRE(p.status == 0);
  const auto rows = csv(p.output);
  REQUIRE(rows.size() >= 2);
  const auto& h = rows.front();
  const auto status = column(h, "status"), reproduce = column(h, "reproduce"), tbt = column(h, "tbt_ms"),
             scheme = column(h, "scheme"), placement = column(h, "placement");
  int checked = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i][status] != "ok") continue;
    const std::string cmd = rows[i][reproduce];
    INFO(rows[i][scheme] << " (" << rows[i][placement] << "): " << cmd);
    // Every timed row names its command (a single GPU's plain and chain-SD rows included).
    REQUIRE(cmd.rfind("specdse ", 0) == 0);
    const auto r = run(cmd.substr(8) + " --format csv", false);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(shows_tbt(csv(r.output), std::stod(rows[i][tbt])));
    ++checked;
  }
  CHECK(checked >= 2);
}

struct Row {
  std::string rank, key, status;
  double tbt_ms = 0;
};

std::vector<Row> plan_rows(const std::string& args) {
  const auto p = run("plan --format csv " + args, false);
  INFO("plan " << args << "\n" << p.output);
  REQUIRE(p.status == 0);
  const auto rows = csv(p.output);
  const auto& h = rows.front();
  std::vector<Row> out;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    Row r;
    r.rank = rows[i][column(h, "rank")];
    r.key = rows[i][column(h, "scheme")] + " | " + rows[i][column(h, "placement")] + " | " + rows[i][column(h, "parameters")];
    r.status = rows[i][column(h, "status")];
    if (r.status == "ok") r.tbt_ms = std::stod(rows[i][column(h, "tbt_ms")]);
    out.push_back(r);
  }
  return out;
}

void check_engines_agree(const std::string& args) {
  const auto roofline = plan_rows(args + " --engine roofline");
  const auto sim = plan_rows(args + " --engine sim");
  INFO("plan " << args);
  REQUIRE(roofline.size() == sim.size());
  REQUIRE(!roofline.empty());
  CHECK(roofline.front().key == sim.front().key);  // the same winner
  for (const auto& r : roofline) {
    if (r.status != "ok") continue;
    const auto s = std::find_if(sim.begin(), sim.end(), [&](const Row& x) { return x.key == r.key; });
    INFO(r.key);
    REQUIRE(s != sim.end());
    REQUIRE(s->status == "ok");
    CHECK(s->tbt_ms == Approx(r.tbt_ms).epsilon(0.10));
  }
}

}  // namespace

TEST_CASE("plan: the same winner and every row within 10 % on both engines (shipped systems, one GPU, one FPGA)", "[plan]") {
  check_engines_agree("--system duodecoding-a800-xeon --model llama-2-7b --context 1024 --alpha 0.6");
  check_engines_agree("--system specpipe-8x3090-pcie --model llama-3.1-70b --context 1024");
  check_engines_agree("--system specpipe-2srv-3090-4090-eth --model llama-3.1-70b --context 1024");
  check_engines_agree("--system eagle-8xh100-nvlink --model llama-3.1-70b --context 1024");
  check_engines_agree("--system hgx-a100-4gpu-nvlink --model llama-3.1-70b --context 1024 --alpha 0.7");
  check_engines_agree("--hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --alpha 0.8");
  check_engines_agree("--hw v80 --model llama-3.1-8b-instruct --context 1024 --alpha 0.7");
}

TEST_CASE("plan: every timed row's reproduce command gives the row's number (one GPU)", "[plan]") {
  check_reproduces("--hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --alpha 0.8");
}

TEST_CASE("plan: every timed row's reproduce command gives the row's number (shipped systems)", "[plan]") {
  check_reproduces("--system duodecoding-a800-xeon --model llama-2-7b --context 1024");
  check_reproduces("--system duodecoding-a800-xeon --model llama-2-7b --context 1024 --alpha 0.6");
  check_reproduces("--system specpipe-8x3090-pcie --model llama-3.1-70b --context 1024");
  check_reproduces("--system specpipe-2srv-3090-4090-eth --model llama-3.1-70b --context 1024");
  check_reproduces("--system eagle-8xh100-nvlink --model llama-3.1-70b --context 1024");
  check_reproduces("--system hgx-a100-4gpu-nvlink --model llama-3.1-70b --context 1024 --alpha 0.7");
}
