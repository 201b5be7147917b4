// --host on the command line (configs/hosts): latency, the scenario commands and plan take the CPU
// that runs --hw's stack; plan's reproduce commands carry it; golden reads a machine's factor off
// its host-bound probes. Bad hosts are one-line errors with exit 2. And latency --sample, the other
// host-program input of a step: a sampled step adds its stack's sampler kernels.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "tests/experiments/cli_run.hpp"
#include "tests/sim/golden_files.hpp"

namespace {
using cli_test::column;
using cli_test::csv;
using cli_test::run;

// A host file in the working directory (the build tree), removed at the end of the scope.
struct HostFile {
  std::string path;
  HostFile(const std::string& name, double scale) : path(name + ".yaml") {
    std::ofstream(path) << "name: " << name << "\ndescription: a test host\ndispatch_time_scale: " << scale << "\n";
  }
  ~HostFile() { std::remove(path.c_str()); }
};

// latency's t_verify_s for one step.
double latency_s(const std::string& args) {
  const auto r = run("latency --format csv " + args, false);
  INFO(args << "\n" << r.output);
  REQUIRE(r.status == 0);
  const auto rows = csv(r.output);
  REQUIRE(rows.size() == 2);
  return std::stod(rows[1][column(rows[0], "t_verify_s")]);
}

// The number after `label` in `text`.
double number_after(const std::string& text, const std::string& label) {
  const auto at = text.find(label);
  REQUIRE(at != std::string::npos);
  return std::stod(text.substr(at + label.size()));
}

}  // namespace

TEST_CASE("host: latency --host scales a host-bound step's host work on both engines", "[host]") {
  const HostFile slow("cli_slow_host", 2.0);
  for (const char* engine : {"roofline", "sim"}) {
    INFO(engine);
    const std::string base = std::string("--hw h200 --model llama-3.2-1b --stack huggingface-transformers --engine ") + engine;
    const double reference = latency_s(base), named = latency_s(base + " --host reference"),
                 slowed = latency_s(base + " --host " + slow.path);
    CHECK(named == reference);
    // Host-bound (docs/gpu-model.md): nearly twice the token.
    CHECK(slowed > 1.9 * reference);
    CHECK(slowed < 2.0 * reference);
  }
}

TEST_CASE("host: a host where no host framework runs, an unknown host, or --host without --hw is a one-line error", "[host]") {
  const auto fpga = run("latency --hw v80 --model llama-3.2-1b --host reference");
  CHECK(fpga.status == 2);
  CHECK_THAT(fpga.output, Catch::Contains("--host reference: v80 is a fpga device, whose engines run no host framework"));
  const auto unknown = run("latency --hw h200 --model llama-3.2-1b --host nope");
  CHECK(unknown.status == 2);
  CHECK_THAT(unknown.output, Catch::Contains("unknown host 'nope'") && Catch::Contains("available: reference"));
  const auto system = run("plan --system specpipe-8x3090-pcie --model llama-3.1-70b --host reference");
  CHECK(system.status == 2);
  CHECK_THAT(system.output, Catch::Contains("a host for --hw's device (a system's devices name theirs in its file)"));
  const auto listed = run("list hosts --format csv", false);
  CHECK(listed.status == 0);
  CHECK_THAT(listed.output, Catch::Contains("reference,") && Catch::Contains("dispatch_time_scale"));
}

TEST_CASE("host: plan --hw --host ranks on that host, and every timed row's reproduce command carries it and gives its number", "[host][plan]") {
  const HostFile slow("cli_plan_host", 1.5);
  const std::string args = "--hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --alpha 0.8";
  const auto reference = run("plan --format csv " + args, false), slowed = run("plan --format csv " + args + " --host " + slow.path, false);
  REQUIRE(reference.status == 0);
  REQUIRE(slowed.status == 0);
  const auto ref_rows = csv(reference.output), rows = csv(slowed.output);
  const auto& h = rows.front();
  const auto status = column(h, "status"), reproduce = column(h, "reproduce"), tbt = column(h, "tbt_ms");
  // The winner's step has host work (vLLM's): a slower host is slower.
  REQUIRE(ref_rows.size() >= 2);
  CHECK(std::stod(rows[1][tbt]) > std::stod(ref_rows[1][column(ref_rows.front(), "tbt_ms")]));
  int checked = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i][status] != "ok") continue;
    const std::string cmd = rows[i][reproduce];
    INFO(cmd);
    CHECK_THAT(cmd, Catch::Contains("--host " + slow.path));
    REQUIRE(cmd.rfind("specdse ", 0) == 0);
    const auto r = run(cmd.substr(8) + " --format csv", false);
    REQUIRE(r.status == 0);
    const double want = std::stod(rows[i][tbt]);
    bool shown = false;
    for (const auto& row : csv(r.output))
      for (const auto& cell : row) {
        char* end = nullptr;
        const double v = std::strtod(cell.c_str(), &end);
        if (cell.empty() || end != cell.c_str() + cell.size()) continue;
        for (double f : {want, want * 1e-3, 1e3 / want})
          if (std::abs(v - f) <= 1e-6 * std::abs(f)) shown = true;
      }
    CHECK(shown);
    ++checked;
  }
  CHECK(checked >= 2);
}

TEST_CASE("host: golden reads a machine's host factor off its narrow probes, and --host with it predicts the held-out rows better", "[host][golden]") {
  const std::string base = "golden --hw h200 --stack huggingface-transformers --measured ";
  // The stack's calibration run: its batch-1 probes give about 1 by construction.
  const auto calibration = run(base + golden_files::measured("h200_hf_overlap_2026-11-29_run2.csv"));
  REQUIRE(calibration.status == 0);
  CHECK(number_after(calibration.output, "rows imply a host dispatch_time_scale of ") == Approx(1.0).margin(0.05));
  // Another run (another host or another hour): slower; its factor taken from the batch-1 probes
  // predicts the narrow rows at batches 4-32, which it was not taken from, better than 1 does.
  const std::string other = golden_files::measured("h200_hf_overlap_2026-11-29_run1.csv");
  const auto measured = run(base + other);
  REQUIRE(measured.status == 0);
  const double factor = number_after(measured.output, "rows imply a host dispatch_time_scale of ");
  CHECK(factor > 1.1);
  const HostFile machine("cli_golden_host", factor);
  auto held_out_error = [&](const std::string& extra) {
    const auto r = run(base + other + extra + " --format csv", false);
    REQUIRE(r.status == 0);
    const auto rows = csv(r.output);
    const auto& h = rows.front();
    double sum = 0;
    int n = 0;
    for (std::size_t i = 1; i < rows.size(); ++i)
      if (rows[i][column(h, "width")] == "narrow" && rows[i][column(h, "batch")] != "1") {
        sum += std::abs(std::stod(rows[i][column(h, "error_pct")]));
        ++n;
      }
    REQUIRE(n >= 6);
    return sum / n;
  };
  CHECK(held_out_error(" --host " + machine.path) < held_out_error(""));
  const auto refused = run("golden --hw h200 --measured " + other + " --host reference");
  CHECK(refused.status == 2);
}

TEST_CASE("latency --sample: a sampled step adds the stack's sampler kernels alike on both engines, and a stack without them refuses", "[sampling]") {
  for (const char* engine : {"roofline", "sim"}) {
    INFO(engine);
    const std::string base =
        std::string("--hw h200 --model llama-3.2-1b --stack huggingface-transformers --engine ") + engine;
    const double greedy = latency_s(base), sampled = latency_s(base + " --sample");
    // Host-bound at batch 1: 63 more launches at the stack's 16 us each, and their device time.
    CHECK(sampled - greedy > 63 * 16e-6);
    CHECK(sampled - greedy < 63 * 16e-6 + 0.2e-3);
  }
  CHECK(latency_s("--hw h200 --model llama-3.2-1b --stack huggingface-transformers --engine sim --sample") ==
        latency_s("--hw h200 --model llama-3.2-1b --stack huggingface-transformers --engine roofline --sample"));
  const auto refused = run("latency --hw h200 --model llama-3.2-1b --stack vllm-cuda-graph --sample");
  CHECK(refused.status == 2);
  CHECK_THAT(refused.output, Catch::Contains("--sample: stack vllm-cuda-graph models greedy decoding only"));
  // A CPU device runs a stack's host work but not its extra kernels: even a stack that lists a
  // sampler is refused there, not timed as greedy.
  for (const char* stack : {"llama-cpp", "huggingface-transformers"}) {
    const auto cpu = run(std::string("latency --hw xeon-16c --model llama-68m --sample --stack ") + stack);
    CHECK(cpu.status == 2);
    CHECK_THAT(cpu.output, Catch::Contains("--sample: xeon-16c is a cpu device"));
  }
}
